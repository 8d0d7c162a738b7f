#include "llm/util/utf8.h"

#include <algorithm>

namespace llm {
namespace {

bool starts_code_point(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }

}  // namespace

int64_t utf8_length(std::string_view text) {
  int64_t n = 0;
  for (const char c : text) n += starts_code_point(c);
  return n;
}

size_t utf8_offset(std::string_view text, int64_t index) {
  int64_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (starts_code_point(text[i]) && seen++ == index) return i;
  }
  return text.size();
}

Utf8Sequence utf8_sequence_at(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {1, 1};
  Utf8Sequence sequence;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    sequence.needed = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    sequence.needed = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    sequence.needed = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {0, 0};
  }
  sequence.valid = 1;
  while (sequence.valid < sequence.needed && i + sequence.valid < s.size()) {
    const unsigned char next = byte(i + sequence.valid);
    if (sequence.valid == 1 ? (next < low || next > high) : (next & 0xC0) != 0x80) break;
    ++sequence.valid;
  }
  return sequence;
}

std::string utf8_replace_invalid(std::string_view bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const auto sequence = utf8_sequence_at(bytes, i);
    if (sequence.needed != 0 && sequence.valid == sequence.needed) {
      out.append(bytes.substr(i, sequence.needed));
      i += sequence.needed;
    } else {
      out.append(kReplacement);  // one for the maximal invalid subpart, at least one byte
      i += std::max<size_t>(1, sequence.valid);
    }
  }
  return out;
}

size_t first_invalid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const auto sequence = utf8_sequence_at(text, i);
    if (sequence.needed == 0 || sequence.valid != sequence.needed) return i;
    i += sequence.needed;
  }
  return std::string_view::npos;
}

std::string shortened(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
  return std::string(text.substr(0, end)) + "...(+" + std::to_string(text.size() - end) + " bytes)";
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {  // U+0080..U+009F, the C1 controls (CSI is U+009B)
      const auto low = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[low >> 4];
      out += kHex[low & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace llm
