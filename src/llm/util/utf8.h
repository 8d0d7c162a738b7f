#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llm {

/// Code points in UTF-8 `text`: Python's len() of the decoded string.
int64_t utf8_length(std::string_view text);

/// The byte offset of code point `index` in UTF-8 `text` (its size when past the end),
/// so that text.substr(0, utf8_offset(text, n)) is Python's text[:n].
size_t utf8_offset(std::string_view text, int64_t index);

/// The UTF-8 sequence that starts at s[i] (RFC 3629: no overlongs, no surrogates,
/// nothing above U+10FFFF): the bytes its first byte calls for (0 when it cannot start
/// one), and how many of them, from s[i] on, are a well-formed prefix. The sequence is
/// well-formed when the two are equal.
struct Utf8Sequence {
  size_t needed = 0;
  size_t valid = 0;
};
Utf8Sequence utf8_sequence_at(std::string_view s, size_t i);

/// The byte offset of the first sequence in `text` that is not well-formed UTF-8;
/// npos when there is none.
size_t first_invalid_utf8(std::string_view text);

/// Appends code point `c` (at most U+10FFFF, not a surrogate) to `out` as UTF-8.
inline void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

/// `bytes` with each invalid UTF-8 sequence replaced by U+FFFD, as Python's
/// bytes.decode("utf-8", errors="replace") does (one U+FFFD per maximal invalid
/// subpart), which is what tiktoken's decode() returns.
std::string utf8_replace_invalid(std::string_view bytes);

/// `text` itself when it has at most `max_bytes` bytes, else its first whole UTF-8
/// characters within them and "...(+N bytes)": what a program prints or an error
/// message echoes of an input stays bounded, whatever the input.
std::string shortened(std::string_view text, size_t max_bytes = 80);

/// `text` safe to print on a terminal: control characters other than newline and tab
/// (ESC, BEL, CR, DEL, the C1 controls) become \xNN or \uNNNN escapes, so that text
/// from a server or a model cannot retitle, clear or rewrite the terminal.
std::string printable(std::string_view text);

}  // namespace llm
