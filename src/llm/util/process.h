#pragma once

#include <filesystem>
#include <string>
#include <string_view>
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

/// Runs a script of scripts/ with python3(): `args`, then the name of a file in a fresh
/// temporary folder for the script to write. That file then replaces `out` whole
/// (write_file_atomic: never through a symbolic link, never half a file). Returns ""
/// when it is done, else why not in one line: the last line the script wrote on stderr
/// (a Python error's message), or the write's error.
std::string run_script_into(std::string_view script, const std::vector<std::string>& args,
                            const std::filesystem::path& out);

}  // namespace llm
