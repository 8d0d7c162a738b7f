#include "llm/util/utf8.h"

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

std::string utf8_replace_invalid(std::string_view bytes) {
  static constexpr const char* kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  const auto at = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char lead = at(i);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the valid range of the second byte
    if (lead < 0x80) {
      out += bytes[i++];
      continue;
    }
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) length = 3, low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
    else if (lead >= 0xF0 && lead <= 0xF4) length = 4, low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
    size_t valid = 1;  // bytes of a well-formed prefix, the lead byte included
    while (length != 0 && valid < length && i + valid < bytes.size()) {
      const unsigned char next = at(i + valid);
      if (valid == 1 ? (next < low || next > high) : (next & 0xC0) != 0x80) break;
      ++valid;
    }
    if (length != 0 && valid == length) {
      out.append(bytes.substr(i, length));
    } else {
      out += kReplacement;  // the maximal invalid subpart, at least one byte
    }
    i += length != 0 && valid == length ? length : valid;
  }
  return out;
}

}  // namespace llm
