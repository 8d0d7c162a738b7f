#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llm {

/// Named tensors in a fixed order: what `torch.save({...})` holds.
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

/// Writes `tensors` as a dict that Python's torch.load reads (torch::pickle_save's
/// zip format), atomically. Tensors are saved detached, on the CPU.
void save_tensors(const std::filesystem::path& path, const NamedTensors& tensors);

/// Reads a dict of tensors written by torch.save (or save_tensors), or a safetensors
/// file (told apart by their first bytes). A file that is neither, or a value that
/// is not a tensor, is an llm::Error naming it.
NamedTensors load_tensors(const std::filesystem::path& path);

/// Whether an entry is called `name`.
bool has_tensor(const NamedTensors& tensors, std::string_view name);

/// The tensor called `name`, or an llm::Error naming `what` and the missing key.
const torch::Tensor& find_tensor(const NamedTensors& tensors, const std::string& name, const std::string& what);

/// The entries whose names start with `prefix`, with it removed ("model/", or lesson
/// 5.4's "model_state_dict/"), in their order.
NamedTensors with_prefix_removed(const NamedTensors& tensors, const std::string& prefix);

/// A string stored as a uint8 tensor, so an archive can say what wrote it, and back.
torch::Tensor string_to_tensor(const std::string& text);
std::string tensor_to_string(const torch::Tensor& bytes);

}  // namespace llm
