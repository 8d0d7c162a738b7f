#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace llm {

/// The whole file as bytes. Throws llm::Error naming the path when it is missing,
/// not a regular file, or unreadable.
std::string read_file(const std::filesystem::path& path);

/// A non-empty UTF-8 text file. Invalid UTF-8 is reported with its byte offset, line
/// and column.
std::string read_text_file(const std::filesystem::path& path);

/// Throws llm::Error, naming `what` and the first bad byte, unless `text` is UTF-8.
void check_utf8(std::string_view text, std::string_view what);

/// Writes a temporary file beside `path`, flushes it, then renames it over `path`, so
/// readers see the old file or the new one, never half of one.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

/// Removes the temporary files that write_file_atomic(path, ...) calls killed in the
/// middle of a write (SIGKILL, power loss) left beside `path`; returns how many.
/// `path` itself is not touched.
int remove_partial_writes(const std::filesystem::path& path);

/// A file of the fetched data: $LLM_DATA_DIR/name if that variable is set, else the
/// project's data/ folder.
std::filesystem::path data_file(std::string_view name);

/// A file of the project's configs/ folder.
std::filesystem::path config_file(std::string_view name);

/// A file of the project's scripts/ folder.
std::filesystem::path script_file(std::string_view name);

}  // namespace llm
