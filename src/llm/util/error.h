#pragma once

#include <stdexcept>

namespace llm {

/// What the library throws for bad input. The message names the input and what was
/// expected, e.g. "file 'data/x.txt': invalid UTF-8 at byte 17 (line 2, column 5)".
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace llm
