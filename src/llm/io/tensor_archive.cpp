#include "llm/io/tensor_archive.h"

#include <fmt/format.h>

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
  const std::string bytes = read_file(path);
  torch::IValue value;
  try {
    value = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const std::exception& e) {
    throw Error(fmt::format("archive '{}': not a torch.save archive ({})", path.string(),
                            std::string(e.what()).substr(0, std::string(e.what()).find('\n'))));
  }
  if (!value.isGenericDict()) {
    throw Error(fmt::format("archive '{}': expected a dict of tensors, got {}", path.string(), value.tagKind()));
  }
  NamedTensors tensors;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString()) {
      throw Error(fmt::format("archive '{}': a key is a {}, expected a string", path.string(), entry.key().tagKind()));
    }
    const std::string name = entry.key().toStringRef();
    if (!entry.value().isTensor()) {
      throw Error(fmt::format("archive '{}': '{}' is a {}, expected a tensor", path.string(), name,
                              entry.value().tagKind()));
    }
    tensors.emplace_back(name, entry.value().toTensor());
  }
  return tensors;
}

const torch::Tensor& find_tensor(const NamedTensors& tensors, const std::string& name, const std::string& what) {
  for (const auto& [key, tensor] : tensors) {
    if (key == name) return tensor;
  }
  throw Error(fmt::format("{}: no tensor named '{}'", what, name));
}

}  // namespace llm
