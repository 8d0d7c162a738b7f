#include "llm/io/mail.h"

#include <iconv.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "llm/util/utf8.h"

namespace llm {
namespace {


std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 2045's quoted-printable: "=XY" is the byte 0xXY, "=" at a line's end joins it to
// the next line.
std::string decode_quoted_printable(std::string_view s, bool underscore_is_space = false) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '=' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 2 : 1;
    } else if (s[i] == '=' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += underscore_is_space && s[i] == '_' ? ' ' : s[i];
    }
  }
  return out;
}

// Base64, skipping what is not of its alphabet (line ends), up to the padding.
std::string decode_base64(std::string_view s) {
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (const char c : s) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) continue;
    bits = bits << 6 | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

// `bytes` in `charset` as UTF-8, through glibc's iconv; nullopt when iconv does not
// know the charset or the bytes are not in it.
std::optional<std::string> to_utf8(const std::string& bytes, const std::string& charset) {
  const auto name = lowercase(charset);
  if (name.empty() || name == "utf-8" || name == "utf8" || name == "us-ascii") return std::nullopt;
  iconv_t cd = iconv_open("UTF-8", name.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  std::string out(bytes.size() * 4 + 16, '\0');
  auto* in = const_cast<char*>(bytes.data());
  char* to = out.data();
  size_t in_left = bytes.size(), out_left = out.size();
  const size_t done = iconv(cd, &in, &in_left, &to, &out_left);
  iconv_close(cd);
  if (done == static_cast<size_t>(-1)) return std::nullopt;
  out.resize(out.size() - out_left);
  return out;
}

// RFC 2047's encoded words in a header ("=?iso-8859-1?Q?caf=E9?="), decoded.
std::string decode_encoded_words(std::string_view value) {
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    const size_t start = value.find("=?", i);
    if (start == std::string_view::npos) break;
    const size_t charset_end = value.find('?', start + 2);
    const size_t encoding_end = charset_end == std::string_view::npos ? charset_end : value.find('?', charset_end + 1);
    const size_t end = encoding_end == std::string_view::npos ? encoding_end : value.find("?=", encoding_end + 1);
    if (end == std::string_view::npos || encoding_end != charset_end + 2) break;
    out += value.substr(i, start - i);
    const char encoding = static_cast<char>(std::toupper(static_cast<unsigned char>(value[charset_end + 1])));
    const auto text = value.substr(encoding_end + 1, end - encoding_end - 1);
    auto bytes = encoding == 'B' ? decode_base64(text) : decode_quoted_printable(text, /*underscore_is_space=*/true);
    const auto utf8 = to_utf8(bytes, std::string(value.substr(start + 2, charset_end - start - 2)));
    out += utf8.value_or(bytes);
    i = end + 2;
  }
  out += value.substr(std::min(i, value.size()));
  return out;
}

// An e-mail or a MIME part: its header fields (names lowercased, the first of each
// kept, folded lines joined) and its body.
struct Part {
  std::map<std::string, std::string> headers;
  std::string_view body;

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  // "text/plain" of "Text/Plain; charset=us-ascii"; text/plain when not given.
  std::string media_type() const {
    const auto value = header("content-type");
    const auto type = lowercase(trim(std::string_view(value).substr(0, value.find(';'))));
    return type.empty() ? "text/plain" : type;
  }
  std::string parameter(std::string_view name) const {
    const auto value = header("content-type");
    const auto lower = lowercase(value);
    const auto at = lower.find(std::string(name) + "=");
    if (at == std::string::npos) return {};
    std::string_view rest = std::string_view(value).substr(at + name.size() + 1);
    if (!rest.empty() && rest.front() == '"') {
      rest.remove_prefix(1);
      return std::string(rest.substr(0, rest.find('"')));
    }
    return std::string(trim(rest.substr(0, rest.find_first_of("; \t\r\n"))));
  }
};

Part parse_part(std::string_view message) {
  Part part;
  size_t head_end = std::string_view::npos, body_start = message.size();
  for (const std::string_view blank : {"\n\n", "\r\n\r\n"}) {
    const size_t at = message.find(blank);
    if (at != std::string_view::npos && at < head_end) {
      head_end = at;
      body_start = at + blank.size();
    }
  }
  if (message.substr(0, 1) == "\n") head_end = 0, body_start = 1;  // no header fields
  const auto head = message.substr(0, std::min(head_end, message.size()));
  part.body = message.substr(std::min(body_start, message.size()));
  std::string name, value;
  const auto keep = [&] {
    if (!name.empty()) part.headers.emplace(lowercase(name), std::string(trim(value)));
    name.clear();
    value.clear();
  };
  size_t i = 0;
  while (i < head.size()) {
    size_t end = head.find('\n', i);
    if (end == std::string_view::npos) end = head.size();
    auto line = head.substr(i, end - i);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    i = end + 1;
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      value += ' ';  // a folded line continues the field
      value += trim(line);
      continue;
    }
    keep();
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;  // mbox's "From " line
    name = line.substr(0, colon);
    value = line.substr(colon + 1);
  }
  keep();
  return part;
}

// The body decoded from its transfer encoding, then from its charset when that is not
// UTF-8 (what stays invalid is read as Latin-1 by clean_line).
std::string decoded_body(const Part& part) {
  const auto encoding = lowercase(trim(part.header("content-transfer-encoding")));
  auto body = encoding == "quoted-printable" ? decode_quoted_printable(part.body)
              : encoding == "base64"         ? decode_base64(part.body)
                                             : std::string(part.body);
  if (auto utf8 = to_utf8(body, part.parameter("charset"))) return *utf8;
  return body;
}

// The decoded body of the first part of type `type`, looking into multipart parts in
// order (at most a few levels deep: a hostile message may nest without end).
std::optional<std::string> first_part(const Part& part, std::string_view type, int depth = 0) {
  const auto media = part.media_type();
  if (media.rfind("multipart/", 0) == 0) {
    const auto boundary = part.parameter("boundary");
    if (boundary.empty() || depth >= 8) return std::nullopt;
    const std::string delimiter = "--" + boundary;
    size_t at = part.body.find(delimiter);
    while (at != std::string_view::npos) {
      size_t start = at + delimiter.size();
      if (part.body.substr(start, 2) == "--") break;  // the closing delimiter
      start = part.body.find('\n', start);
      if (start == std::string_view::npos) break;
      const size_t next = part.body.find(delimiter, start + 1);
      const auto inner = part.body.substr(start + 1, next == std::string_view::npos ? std::string_view::npos
                                                                                     : next - start - 1);
      if (auto found = first_part(parse_part(inner), type, depth + 1)) return found;
      at = next;
    }
    return std::nullopt;
  }
  if (media == type) return decoded_body(part);
  return std::nullopt;
}

// HTML's text: style, script and comments dropped, tags become spaces, the common
// entities decoded.
std::string html_text(std::string_view html) {
  std::string out;
  const auto lower = lowercase(html);
  size_t i = 0;
  while (i < html.size()) {
    if (html[i] == '<') {
      size_t end = std::string::npos;
      if (lower.compare(i, 4, "<!--") == 0) {
        end = lower.find("-->", i);
        end = end == std::string::npos ? end : end + 2;
      } else if (lower.compare(i, 6, "<style") == 0 || lower.compare(i, 7, "<script") == 0) {
        const bool style = lower.compare(i, 6, "<style") == 0;
        end = lower.find(style ? "</style" : "</script", i);
        end = end == std::string::npos ? end : lower.find('>', end);
      } else {
        end = lower.find('>', i);
      }
      if (end == std::string::npos) break;
      out += ' ';
      i = end + 1;
      continue;
    }
    if (html[i] == '&') {
      static const std::pair<const char*, const char*> kEntities[] = {
          {"&nbsp;", " "}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
      bool replaced = false;
      for (const auto& [entity, text] : kEntities) {
        if (lower.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
          out += text;
          i += std::char_traits<char>::length(entity);
          replaced = true;
          break;
        }
      }
      if (replaced) continue;
      if (lower.compare(i, 2, "&#") == 0) {  // &#233; and &#xE9;
        // Only the next 8 characters may hold the ';': a text of "&#" without one
        // would otherwise be scanned to its end once per "&#".
        const size_t window = std::string_view(lower).substr(i, 9).find(';');
        const size_t semicolon = window == std::string_view::npos ? window : i + window;
        if (semicolon != std::string::npos) {
          const bool hex = lower[i + 2] == 'x';
          const auto digits = lower.substr(i + (hex ? 3 : 2), semicolon - i - (hex ? 3 : 2));
          char* end = nullptr;
          const long code = std::strtol(digits.c_str(), &end, hex ? 16 : 10);
          if (!digits.empty() && end == digits.c_str() + digits.size() && code > 0 && code < 0x110000 &&
              (code < 0xD800 || code > 0xDFFF)) {
            append_utf8(out, static_cast<char32_t>(code));
            i = semicolon + 1;
            continue;
          }
        }
      }
    }
    out += html[i++];
  }
  return out;
}

// One line of UTF-8: valid UTF-8 kept, other bytes read as Latin-1, control characters
// and runs of white space made one space, the ends trimmed.
std::string clean_line(std::string_view bytes) {
  std::string out;
  bool space = false;
  const auto put = [&](std::string_view piece) {
    if (space && !out.empty()) out += ' ';
    space = false;
    out += piece;
  };
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      if (c <= 0x20 || c == 0x7F) {
        space = true;
      } else {
        put(bytes.substr(i, 1));
      }
      ++i;
      continue;
    }
    const auto sequence = utf8_sequence_at(bytes, i);
    if (sequence.needed > 0 && sequence.valid == sequence.needed) {
      put(bytes.substr(i, sequence.needed));
      i += sequence.needed;
    } else if (c == 0xA0) {  // Latin-1's no-break space
      space = true;
      ++i;
    } else {
      std::string latin1;
      append_utf8(latin1, c);
      put(latin1);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string mail_text(std::string_view raw_email) {
  const auto message = parse_part(raw_email);
  auto body = first_part(message, "text/plain");
  if (!body || clean_line(*body).empty()) {
    if (auto html = first_part(message, "text/html")) body = html_text(*html);
  }
  const auto subject = clean_line(decode_encoded_words(message.header("subject")));
  return clean_line(subject + " " + body.value_or(""));
}

}  // namespace llm
