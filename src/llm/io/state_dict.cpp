#include "llm/io/state_dict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_map>

#include "llm/util/error.h"
#include "llm/nn/linear.h"

namespace llm {

namespace {

NamedTensors state_dict(const torch::nn::Module& module, bool merge_lora) {
  NamedTensors out;
  for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/true)) {
    if (merge_lora && item.value()->as<LoRAImpl>() != nullptr) continue;  // folded into its Linear below
    const std::string prefix = item.key().empty() ? "" : item.key() + ".";
    const auto* linear = merge_lora ? item.value()->as<LinearImpl>() : nullptr;
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      if (linear != nullptr && linear->lora && p.key() == "weight") {
        torch::NoGradGuard no_grad;
        out.emplace_back(prefix + p.key(), p.value() + linear->lora->weight_delta());
      } else {
        out.emplace_back(prefix + p.key(), p.value());
      }
    }
    for (const auto& b : item.value()->named_buffers(/*recurse=*/false)) out.emplace_back(prefix + b.key(), b.value());
  }
  return out;
}

}  // namespace

NamedTensors state_dict(const torch::nn::Module& module) { return state_dict(module, /*merge_lora=*/false); }

NamedTensors merged_state_dict(const torch::nn::Module& module) { return state_dict(module, /*merge_lora=*/true); }

void load_state_dict(torch::nn::Module& module, NamedTensors tensors, const std::string& source) {
  const NamedTensors entries = state_dict(module);
  std::unordered_map<std::string, torch::Tensor> targets(entries.begin(), entries.end());
  // A Linear's weight goes in through the layer, which keeps it in its own bytes (bfloat16,
  // int8 with scales: ConvertLinearsWhenBuilt).
  std::unordered_map<std::string, LinearImpl*> linear_weights;
  for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/true)) {
    if (auto* linear = item.value()->as<LinearImpl>()) {
      linear_weights.emplace(item.key().empty() ? "weight" : item.key() + ".weight", linear);
    }
  }
  std::unordered_map<std::string, torch::Tensor*> given;
  for (auto& [name, tensor] : tensors) {
    const auto it = targets.find(name);
    if (it == targets.end()) {
      throw Error(fmt::format("state dict '{}': unexpected key '{}' (the model has no such parameter or buffer)",
                              source, name));
    }
    if (!tensor.sizes().equals(it->second.sizes())) {
      throw Error(fmt::format("state dict '{}': '{}' has shape [{}], expected [{}]", source, name,
                              fmt::join(tensor.sizes(), ", "), fmt::join(it->second.sizes(), ", ")));
    }
    if (!tensor.is_floating_point() && (it->second.is_floating_point() || linear_weights.count(name) != 0)) {
      throw Error(fmt::format("state dict '{}': '{}' is {}, expected a floating-point tensor", source, name,
                              c10::toString(tensor.scalar_type())));
    }
    given.emplace(name, &tensor);
  }
  for (const auto& [name, target] : entries) {
    if (given.count(name) == 0) throw Error(fmt::format("state dict '{}': missing key '{}'", source, name));
  }
  torch::NoGradGuard no_grad;
  for (const auto& [name, target] : entries) {
    auto& tensor = *given.at(name);
    const auto linear = linear_weights.find(name);
    if (linear != linear_weights.end()) {
      linear->second->load_weight(tensor);
    } else {
      target.copy_(tensor);
    }
    tensor = torch::Tensor();  // let go: the last holder of a file's tensor frees its pages
  }
}

}  // namespace llm
