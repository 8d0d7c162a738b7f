// A token file, byte for byte (tools/prepare writes them; training maps them). The
// reader must accept it or throw an llm::Error; what it accepts has the size its
// header states, every id fits the vocabulary's width, and windows cut from it (as
// training cuts them) hold its ids.
#include <torch/torch.h>

#include <filesystem>
#include <unistd.h>

#include "fuzz.h"
#include "llm/text/dataset.h"
#include "llm/text/token_file.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace {

// The file each input is written to, one per process, removed when the process ends.
struct ScratchFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("fuzz-token-file-" + std::to_string(::getpid()));
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScratchFile scratch;
  const auto& path = scratch.path;
  llm::write_file_atomic(path, llm::fuzz::bytes(data, size));
  try {
    const auto file = std::make_shared<const llm::TokenFile>(path);
    const auto& header = file->header();
    llm::fuzz::require(static_cast<int64_t>(size) ==
                           static_cast<int64_t>(llm::TokenFileHeader::kBytes) + header.tokens * header.token_bytes,
                       "an accepted file's size is not the header's and the ids'");
    const auto ids = file->ids();
    llm::fuzz::require(static_cast<int64_t>(ids.size()) == header.tokens, "ids() is not the header's token count");
    const int64_t limit = int64_t{1} << (8 * header.token_bytes);
    for (const int64_t id : ids) llm::fuzz::require(id >= 0 && id < limit, "an id outside the file's id width");
    if (header.tokens >= 3) {
      const llm::TokenFileDataset windows(file, 0, header.tokens, 2, 1);
      const auto [x, y] = windows.get_batch(torch::tensor({int64_t{0}, windows.size() - 1}));
      llm::fuzz::require(x[0][0].item<int64_t>() == ids[0] && y[1][1].item<int64_t>() == ids.back(),
                         "a window does not hold the file's ids");
    }
  } catch (const llm::Error&) {
  }
  return 0;
}
