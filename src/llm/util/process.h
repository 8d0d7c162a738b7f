#pragma once

#include <string>
#include <vector>

namespace llm {

/// Runs a program (looked up in PATH when `argv[0]` has no slash) with these
/// arguments, no shell involved, and waits for it. Returns its exit status, or -1 when
/// it could not be started or did not exit normally.
int run_process(const std::vector<std::string>& argv);

}  // namespace llm
