#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace llm {

/// Runs a program (looked up in PATH when `argv[0]` has no slash) with these
/// arguments, no shell involved, and waits for it. Returns its exit status, or -1 when
/// it could not be started or did not exit normally.
int run_process(const std::vector<std::string>& argv);

/// The Python that runs the project's scripts: Debian's /usr/bin/python3 (with
/// python3-torch and matplotlib) when it is there, else python3 from PATH.
std::string python3();

/// The same with the program's stderr written into the file `stderr_file`, for the
/// caller to report in its own words.
int run_process(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file);

}  // namespace llm
