// A torch.save archive's contents, written into a well-formed zip so that every input
// passes the zip layer and its checksums: the input is records separated by the four
// bytes "\xffREC", the first being data.pkl and the k-th after it data/<k-1> (the
// storages). The reader must return tensors that lie inside their storages (every
// element is read, so ASan sees any that does not) or throw an llm::Error; what it
// returns then goes through every step of reading a checkpoint.
#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include "fuzz.h"
#include "fuzz_checkpoint.h"
#include "llm/io/torch_pickle.h"
#include "llm/util/error.h"

namespace {

std::string archive_of(std::string_view input) {
  constexpr std::string_view kSeparator = "\xffREC";
  std::string archive;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t size) {
    archive.append(static_cast<const char*>(data), size);
    return size;
  });
  for (int record = 0;; ++record) {
    const size_t end = std::min(input.find(kSeparator), input.size());
    const std::string name = record == 0 ? "data.pkl" : "data/" + std::to_string(record - 1);
    writer.writeRecord(name, input.data(), end);
    if (end == input.size()) break;
    input.remove_prefix(end + kSeparator.size());
  }
  writer.writeEndOfFile();
  return archive;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source = "fuzz input";
  try {
    const auto tensors = llm::read_torch_archive(archive_of(llm::fuzz::bytes(data, size)), source);
    for (const auto& [name, tensor] : tensors) {
      llm::fuzz::require(tensor.defined(), "an undefined tensor for '" + name + "'");
      if (tensor.numel() > 0) (void)tensor.to(torch::kDouble).abs().sum().item<double>();
    }
    llm::fuzz::load_as_checkpoint(tensors, source);
  } catch (const llm::Error&) {
  }
  return 0;
}
