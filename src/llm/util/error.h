#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace llm {

/// What the library throws for bad input. The message names the input and what was
/// expected, e.g. "file 'data/x.txt': invalid UTF-8 at byte 17 (line 2, column 5)".
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown when a signal stopped the work at a safe point, after what was done has been
/// saved. The program says `what()` and exits with `exit_code`: 128 + the signal, as a
/// shell reports a program that the signal ended.
struct Stopped : std::runtime_error {
  Stopped(const std::string& message, int exit_code) : std::runtime_error(message), exit_code(exit_code) {}
  int exit_code;
};

/// The first line of an error message: LibTorch's errors carry a C++ backtrace, and
/// c10d's a log, after it.
inline std::string first_line(std::string_view message) { return std::string(message.substr(0, message.find('\n'))); }

}  // namespace llm
