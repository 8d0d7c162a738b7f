#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace llm {

/// The whole file as bytes. Throws llm::Error naming the path when it is missing,
/// not a regular file, or unreadable.
std::string read_file(const std::filesystem::path& path);

/// The file's first `n` bytes (fewer when it is shorter), with the same checks.
std::string read_file_start(const std::filesystem::path& path, size_t n);

/// A non-empty UTF-8 text file. Invalid UTF-8 is reported with its byte offset, line
/// and column.
std::string read_text_file(const std::filesystem::path& path);

/// Throws llm::Error, naming `what` and the first bad byte, unless `text` is UTF-8.
void check_utf8(std::string_view text, std::string_view what);

/// Writes a temporary file beside `path`, flushes it, then renames it over `path`, so
/// readers see the old file or the new one, never half of one. A `path` that exists
/// and is not a regular file (a symlink, a device such as /dev/null, a folder) is
/// refused with an llm::Error, never replaced. SIGINT and SIGTERM wait for the write
/// to finish (DeferSignals).
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

/// Removes the temporary files that write_file_atomic(path, ...) calls killed in the
/// middle of a write (SIGKILL, power loss) left beside `path`; returns how many.
/// `path` itself is not touched.
int remove_partial_writes(const std::filesystem::path& path);

/// An exclusive lock on a folder that a run writes into: flock(2) on its file ".lock",
/// held while the object lives and dropped by the kernel when the process ends, however
/// it ends. A second run that asks for the same folder gets an llm::Error naming it.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&&) = delete;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

/// The folder that holds the project's configs/, data/ and scripts/: $LLM_HOME when
/// set, else share/libtorch-llm beside the executable's bin/ folder. An install puts
/// them there, and the build tree has the same layout (links into the source tree),
/// so a build or an installed copy works wherever it is moved.
std::filesystem::path home_dir();

/// A file of the data: $LLM_DATA_DIR/name when that variable is set, else
/// home_dir()/data/name.
std::filesystem::path data_file(std::string_view name);

/// data_file(name), which must exist: when it does not, throws llm::Error naming it
/// and saying how to get it (scripts/fetch-data.sh).
std::filesystem::path existing_data_file(std::string_view name);

/// A file of home_dir()/configs.
std::filesystem::path config_file(std::string_view name);

/// Where scripts/download-gpt2.sh puts pretrained weights: $LLM_MODELS_DIR/name, else
/// <home>/models/name.
std::filesystem::path model_file(std::string_view name);

/// A file of home_dir()/scripts.
std::filesystem::path script_file(std::string_view name);

}  // namespace llm
