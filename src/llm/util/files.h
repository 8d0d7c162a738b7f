#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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

/// Throws llm::Error unless write_file_atomic could write `path`: its folder exists and
/// takes files, and `path` is a new name or a regular file. Also refused: `path` being
/// the same file as one of `inputs`. Programs check every output this way before they
/// start their work, so that no work is lost to an output that cannot be written and
/// no input is overwritten.
void check_output_file(const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs = {});

/// A file written in pieces that appears whole or not at all: the bytes go to a
/// temporary file beside `path` (the one remove_partial_writes finds), and commit()
/// flushes it to disk and renames it over `path`. Dropped without commit() (an error,
/// a stop), it removes the temporary file and leaves `path` as it was. `path` is
/// checked as write_file_atomic checks it.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `bytes`.
  void write(std::string_view bytes);
  /// Overwrites the bytes at `offset` (a header written last).
  void write_at(uint64_t offset, std::string_view bytes);
  /// Makes the file `path`; SIGINT and SIGTERM wait until it is there.
  void commit();
  const std::filesystem::path& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* step);
  void discard() noexcept;

  std::filesystem::path path_;
  std::string temporary_;
  int fd_ = -1;
};

/// A fresh folder under the system's temporary folder (mkdtemp: only this user may
/// enter it), removed with everything in it when the object goes.
class TempFolder {
 public:
  /// `name` starts the folder's name ("plot" gives /tmp/plot.Ab12Cd).
  explicit TempFolder(std::string_view name);
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// A file mapped into memory (mmap): its pages are read as they are touched and can
/// be dropped by the kernel under pressure, so a file far larger than memory can be
/// read as one string_view. Read-only, or copy-on-write: writes to data() stay in
/// this process (tensors viewing a file's bytes may be written in place).
class MappedFile {
 public:
  enum class Access { kReadOnly, kCopyOnWrite };
  explicit MappedFile(const std::filesystem::path& path, Access access = Access::kReadOnly);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }
  /// Writable with Access::kCopyOnWrite only.
  char* data() const { return data_; }
  size_t size() const { return size_; }
  /// Drops the whole pages inside [offset, offset + bytes) from this process's memory
  /// (madvise MADV_DONTNEED): a later read sees the file's bytes again, and writes made
  /// there are lost. For a range that nothing reads any more, such as a tensor that has
  /// gone.
  void release(size_t offset, size_t bytes) const;

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

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

/// Where a config named by a flag or a run config is, looked for as data is: `given`
/// when it exists or is absolute; else the same relative path under home_dir()
/// ("configs/train-quick.json" from any folder); else home_dir()/configs/given. When
/// none exists, an llm::Error naming `given` and each place looked.
std::filesystem::path find_config(const std::string& given);

/// Where scripts/download-gpt2.sh puts pretrained weights: $LLM_MODELS_DIR/name, else
/// <home>/models/name.
std::filesystem::path model_file(std::string_view name);

/// A file of home_dir()/scripts.
std::filesystem::path script_file(std::string_view name);

}  // namespace llm
