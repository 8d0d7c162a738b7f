#include "llm/io/tensor_archive.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/io/safetensors.h"
#include "llm/io/torch_pickle.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

void save_tensors(const std::filesystem::path& path, const NamedTensors& tensors) {
  c10::Dict<std::string, torch::Tensor> dict;
  for (const auto& [name, tensor] : tensors) {
    if (!dict.insert(name, tensor.detach().cpu()).second) {
      throw Error(fmt::format("archive '{}': the name '{}' is used twice", path.string(), name));
    }
  }
  const std::vector<char> bytes = torch::pickle_save(dict);
  write_file_atomic(path, std::string_view(bytes.data(), bytes.size()));
}

NamedTensors load_tensors(const std::filesystem::path& path) {
  if (looks_like_safetensors(read_file_start(path, 9))) return load_safetensors(path);
  // torch::pickle_load cannot read torch.save(model.state_dict()) (an OrderedDict),
  // so the archive is read by the project's own reader of that format.
  return load_torch_archive(path);
}

bool has_tensor(const NamedTensors& tensors, std::string_view name) {
  return std::any_of(tensors.begin(), tensors.end(), [&](const auto& entry) { return entry.first == name; });
}

const torch::Tensor& find_tensor(const NamedTensors& tensors, const std::string& name, const std::string& what) {
  for (const auto& [key, tensor] : tensors) {
    if (key == name) return tensor;
  }
  throw Error(fmt::format("{}: no tensor named '{}'", what, name));
}

NamedTensors with_prefix_removed(const NamedTensors& tensors, const std::string& prefix) {
  NamedTensors out;
  for (const auto& [name, tensor] : tensors) {
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), tensor);
  }
  return out;
}

torch::Tensor string_to_tensor(const std::string& text) {
  return torch::tensor(std::vector<uint8_t>(text.begin(), text.end()), torch::kUInt8);
}

std::string tensor_to_string(const torch::Tensor& bytes) {
  const auto flat = bytes.contiguous().to(torch::kUInt8).flatten();
  const auto* data = reinterpret_cast<const char*>(flat.data_ptr<uint8_t>());
  return std::string(data, data + flat.numel());
}

}  // namespace llm
