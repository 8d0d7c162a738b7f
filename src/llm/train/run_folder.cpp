#include "llm/train/run_folder.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

void RunFolder::open() {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    throw Error(fmt::format("out_dir '{}': cannot be made a folder ({}); expected a folder for the checkpoint",
                            dir_.string(), error.message()));
  }
  if (!lock_) lock_.emplace(dir_);
  // What a run writes here (checkpoint, metrics, plots) is replaced by rename, never
  // written through a link: a link found here now would only fail the run at its end.
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    if (entry.is_symlink(error)) {
      throw Error(fmt::format("out_dir '{}': '{}' is a symbolic link; expected only the files a run writes, "
                              "choose another --out-dir",
                              dir_.string(), entry.path().filename().string()));
    }
  }
  remove_partial_writes(checkpoint_path());
  remove_partial_writes(metrics_path());
}

void RunFolder::check_free(const std::string& resumed_from, bool overwrite) const {
  if (overwrite || !writes()) return;
  const auto existing = checkpoint_path();
  std::error_code error;
  if (!std::filesystem::exists(existing, error)) return;
  if (!resumed_from.empty() && std::filesystem::equivalent(existing, resumed_from, error)) return;
  throw Error(fmt::format("out_dir '{}' already holds a checkpoint from another run ('{}'); continue it with "
                          "--resume {}, replace it with --overwrite, or choose another --out-dir",
                          dir_.string(), existing.string(), existing.string()));
}

}  // namespace llm
