// What the fuzz targets share. Each target defines LLVMFuzzerTestOneInput: it must
// return for any input, turning bad input into an llm::Error, and it aborts (a crash,
// to libFuzzer) when a property it checks does not hold. Any other exception that
// escapes is a crash too: the executables would print it as a raw error.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace llm::fuzz {

inline std::string bytes(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// `n` in lowercase hexadecimal digits, as a chunked body writes a chunk's size.
inline std::string hex(size_t n) {
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789abcdef"[n % 16]);
    n /= 16;
  } while (n != 0);
  return digits;
}

/// Stops the process with `what` when `ok` is false: a property of the code under test failed.
inline void require(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property failed: %s\n", what.c_str());
  std::abort();
}

/// Whether `text` is well-formed UTF-8 (RFC 3629), checked by decoding each code point
/// and testing its value: an oracle written apart from the library's check_utf8.
inline bool valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    uint32_t cp = n == 1 ? lead : lead & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = cp << 6 | (c & 0x3F);
    }
    constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // shorter forms are overlong
    if (cp < kSmallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

}  // namespace llm::fuzz
