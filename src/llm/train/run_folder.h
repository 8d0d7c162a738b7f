#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "llm/util/files.h"

namespace llm {

/// The folder a run writes (its out_dir): checkpoint.pt and metrics.jsonl, beside
/// which the training steps put their plots and weights. One run at a time: the first
/// open() locks it. An empty out_dir writes nothing.
class RunFolder {
 public:
  explicit RunFolder(const std::string& out_dir) : dir_(out_dir) {}

  bool writes() const { return !dir_.empty(); }
  const std::filesystem::path& path() const { return dir_; }
  /// Empty when the run writes nothing.
  std::filesystem::path checkpoint_path() const { return file("checkpoint.pt"); }
  std::filesystem::path metrics_path() const { return file("metrics.jsonl"); }

  /// Makes the folder and locks it (a second run into it is refused), refuses it when
  /// it holds a symbolic link, and removes what a run killed mid-write left of the
  /// checkpoint and metrics.
  void open();

  /// A checkpoint already here is another run's work: continued with --resume (then
  /// `resumed_from` is that file), replaced only when `overwrite` says so; an
  /// llm::Error saying which otherwise.
  void check_free(const std::string& resumed_from, bool overwrite) const;

 private:
  std::filesystem::path file(const char* name) const { return writes() ? dir_ / name : std::filesystem::path(); }

  std::filesystem::path dir_;
  std::optional<FolderLock> lock_;
};

}  // namespace llm
