#include "llm/util/files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llm/util/error.h"
#include "llm/util/interrupt.h"
#include "llm/util/utf8.h"

namespace llm {
namespace fs = std::filesystem;

namespace {

std::ifstream open_for_reading(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    throw Error(fmt::format("file '{}': not found", path.string()));
  }
  if (!fs::is_regular_file(status)) {
    throw Error(fmt::format("file '{}': not a regular file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("file '{}': cannot be read ({})", path.string(), std::strerror(errno)));
  }
  return in;
}

}  // namespace

std::string read_file(const fs::path& path) {
  auto in = open_for_reading(path);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) {
    throw Error(fmt::format("file '{}': read failed", path.string()));
  }
  return bytes;
}

std::string read_file_start(const fs::path& path, size_t n) {
  auto in = open_for_reading(path);
  // In chunks, so that a small file under a large `n` costs only its size.
  constexpr size_t kChunk = size_t{1} << 20;
  std::string bytes;
  while (bytes.size() < n && in) {
    const size_t at = bytes.size();
    bytes.resize(at + std::min(kChunk, n - at));
    in.read(bytes.data() + at, static_cast<std::streamsize>(bytes.size() - at));
    if (in.bad()) throw Error(fmt::format("file '{}': read failed", path.string()));
    bytes.resize(at + static_cast<size_t>(in.gcount()));
  }
  return bytes;
}

std::string read_text_file(const fs::path& path) {
  std::string text = read_file(path);
  if (text.empty()) {
    throw Error(fmt::format("file '{}': is empty; expected UTF-8 text", path.string()));
  }
  check_utf8(text, fmt::format("file '{}'", path.string()));
  return text;
}

void check_utf8(std::string_view text, std::string_view what) {
  const size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  // Where it is, for a person: lines from 1, and columns counted in characters.
  const auto before = text.substr(0, bad);
  const size_t line_start = before.rfind('\n') + 1;  // 0 when there is no newline
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t column = 1 + static_cast<size_t>(utf8_length(before.substr(line_start)));
  throw Error(fmt::format("{}: invalid UTF-8 at byte {} (line {}, column {}); expected UTF-8 text", what, bad, line,
                          column));
}

namespace {

// Where write_file_atomic puts its temporary file for `path`: the same folder, named
// ".<name>." and six characters mkstemp chooses.
fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }
std::string temporary_prefix(const fs::path& path) { return "." + path.filename().string() + "."; }
constexpr size_t kTemporarySuffix = 6;

}  // namespace

int remove_partial_writes(const fs::path& path) {
  const fs::path dir = folder_of(path);
  const std::string prefix = temporary_prefix(path);
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == prefix.size() + kTemporarySuffix && name.rfind(prefix, 0) == 0 && entry.is_regular_file(ec) &&
        fs::remove(entry.path(), ec)) {
      ++removed;
    }
  }
  return removed;
}

FolderLock::FolderLock(const fs::path& folder) {
  const fs::path lock = folder / ".lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) {
    throw Error(fmt::format("folder '{}': cannot open its lock file '{}' ({})", folder.string(), lock.string(),
                            std::strerror(errno)));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    throw Error(err == EWOULDBLOCK
                    ? fmt::format("folder '{}': another run is writing there (it holds '{}'); wait for it to end, "
                                  "or choose another folder",
                                  folder.string(), lock.string())
                    : fmt::format("folder '{}': cannot lock '{}' ({})", folder.string(), lock.string(),
                                  std::strerror(err)));
  }
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock
}

namespace {

// Throws llm::Error unless `path` may be replaced by a regular file: see check_output_file.
void check_replaceable(const fs::path& path) {
  const fs::path dir = folder_of(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(fmt::format("file '{}': folder '{}' does not exist", path.string(), dir.string()));
  }
  // Replacing is for files: a device node (/dev/null), a symlink, a folder or a pipe
  // in the way is refused, never replaced by a regular file.
  const auto status = fs::symlink_status(path, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    throw Error(fmt::format("file '{}': exists and is not a regular file (a {}); refusing to replace it",
                            path.string(), fs::is_symlink(status)     ? "symbolic link"
                                           : fs::is_directory(status) ? "folder"
                                           : fs::is_character_file(status) || fs::is_block_file(status)
                                               ? "device"
                                               : "special file"));
  }
}

}  // namespace

void check_output_file(const fs::path& path, const std::vector<fs::path>& inputs) {
  check_replaceable(path);
  if (::access(folder_of(path).c_str(), W_OK | X_OK) != 0) {
    throw Error(fmt::format("file '{}': cannot write into folder '{}' ({})", path.string(), folder_of(path).string(),
                            std::strerror(errno)));
  }
  std::error_code ec;
  for (const auto& input : inputs) {
    if (fs::equivalent(path, input, ec)) {
      throw Error(fmt::format("file '{}': is also an input ('{}'); refusing to write over it, give another name",
                              path.string(), input.string()));
    }
  }
}

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)) {
  check_replaceable(path_);
  const fs::path dir = folder_of(path_);
  temporary_ = (dir / (temporary_prefix(path_) + std::string(kTemporarySuffix, 'X'))).string();
  fd_ = ::mkstemp(temporary_.data());
  if (fd_ < 0) {
    throw Error(fmt::format("file '{}': cannot create a temporary file ({})", path_.string(), std::strerror(errno)));
  }
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temporary_.c_str());
  fd_ = -1;
}

void AtomicFile::fail(const char* step) {
  const int err = errno;
  discard();
  throw Error(fmt::format("file '{}': {} failed ({})", path_.string(), step, std::strerror(err)));
}

void AtomicFile::write(std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicFile::write_at(uint64_t offset, std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  const DeferSignals finish_first;  // a second Ctrl-C waits for the file to be whole
  if (::fchmod(fd_, 0644) != 0) fail("chmod");
  if (::fsync(fd_) != 0) fail("fsync");
  if (::close(std::exchange(fd_, -1)) != 0) {
    const int err = errno;
    ::unlink(temporary_.c_str());
    throw Error(fmt::format("file '{}': close failed ({})", path_.string(), std::strerror(err)));
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary_.c_str());
    throw Error(fmt::format("file '{}': rename failed ({})", path_.string(), std::strerror(err)));
  }
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  const DeferSignals finish_first;  // from the first byte: a checkpoint is written whole
  AtomicFile file(path);
  file.write(bytes);
  file.commit();
}

TempFolder::TempFolder(std::string_view name) {
  auto pattern = (fs::temp_directory_path() / fmt::format("{}.XXXXXX", name)).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(fmt::format("folder '{}': cannot make it ({})", pattern, std::strerror(errno)));
  }
  path_ = pattern;
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

MappedFile::MappedFile(const fs::path& path, Access access) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("file '{}': cannot be read ({})", path.string(), std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw Error(fmt::format("file '{}': not a regular file", path.string()));
  }
  size_ = static_cast<size_t>(info.st_size);
  if (size_ > 0) {
    void* data = access == Access::kReadOnly ? ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0)
                                             : ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error(fmt::format("file '{}': cannot be mapped ({})", path.string(), std::strerror(err)));
    }
    data_ = static_cast<char*>(data);
  }
  ::close(fd);  // the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

void MappedFile::release(size_t offset, size_t bytes) const {
  if (offset > size_ || bytes > size_ - offset) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(data_) + offset;
  const uintptr_t first = (start + page - 1) / page * page, last = (start + bytes) / page * page;
  // Advice only: where the kernel refuses it, the pages stay until the file is unmapped.
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

fs::path home_dir() {
  static const fs::path home = [] {
    const char* dir = std::getenv("LLM_HOME");
    if (dir != nullptr && *dir != '\0') return fs::path(dir);
    std::error_code ec;
    const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
    return (executable.parent_path() / ".." / "share" / "libtorch-llm").lexically_normal();
  }();
  return home;
}

fs::path data_file(std::string_view name) {
  const char* dir = std::getenv("LLM_DATA_DIR");
  return (dir != nullptr && *dir != '\0' ? fs::path(dir) : home_dir() / "data") / fs::path(name);
}

fs::path existing_data_file(std::string_view name) {
  fs::path path = data_file(name);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw Error(fmt::format("data file '{}' is missing; scripts/fetch-data.sh fetches it (or copies it from the "
                            "folder LLM_DATA_MIRROR names), and LLM_DATA_DIR points to data kept elsewhere",
                            path.string()));
  }
  return path;
}

fs::path config_file(std::string_view name) { return home_dir() / "configs" / fs::path(name); }

fs::path find_config(const std::string& given) {
  const fs::path path(given);
  std::error_code none;
  if (!path.is_relative() || fs::exists(path, none)) return path;
  for (const auto& candidate : {home_dir() / path, config_file(given)}) {
    if (fs::exists(candidate, none)) return candidate;
  }
  throw Error(fmt::format("config '{}': not found, here, in '{}' or in '{}'", given, home_dir().string(),
                          config_file("").parent_path().string()));
}

fs::path model_file(std::string_view name) {
  const char* dir = std::getenv("LLM_MODELS_DIR");
  return (dir != nullptr && *dir != '\0' ? fs::path(dir) : home_dir() / "models") / fs::path(name);
}

fs::path script_file(std::string_view name) { return home_dir() / "scripts" / fs::path(name); }

}  // namespace llm
