// The checkpoint loader on any file, byte for byte: the zip layer with its CRC-32
// checks, the pickle, then every step of reading a checkpoint. Mutated bytes seldom
// pass the checksums; fuzz-archive reaches the steps behind them. The file is read
// both ways the reader can: mapped (load_torch_archive, what --checkpoint does) and
// from bytes (read_torch_archive); the two must give the same tensors or both refuse.
#include <cstring>
#include <fstream>
#include <optional>

#include "fuzz.h"
#include "fuzz_checkpoint.h"
#include "llm/io/torch_pickle.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace {

template <typename Reader>
std::optional<llm::NamedTensors> read(const Reader& reader) {
  try {
    return reader();
  } catch (const llm::Error&) {
    return std::nullopt;
  }
}

// The same names, dtypes, shapes and bytes (NaNs included, which torch::equal would
// call different).
bool same(const llm::NamedTensors& a, const llm::NamedTensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto x = a[i].second.contiguous(), y = b[i].second.contiguous();
    if (a[i].first != b[i].first || x.scalar_type() != y.scalar_type() || !x.sizes().equals(y.sizes()) ||
        (x.nbytes() > 0 && std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) != 0)) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const llm::TempFolder folder("fuzz-checkpoint");
  const auto file = folder / "input.pt";
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  const auto mapped = read([&] { return llm::load_torch_archive(file); });
  const auto copied = read([&] { return llm::read_torch_archive(llm::fuzz::bytes(data, size), "fuzz input"); });
  llm::fuzz::require(mapped.has_value() == copied.has_value(), "one reader refuses what the other reads");
  if (!mapped) return 0;
  llm::fuzz::require(same(*mapped, *copied), "the mapped reader and the bytes reader give different tensors");
  try {
    llm::fuzz::load_as_checkpoint(*mapped, "fuzz input");
  } catch (const llm::Error&) {
  }
  return 0;
}
