#include "llm/train/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/show.h"

namespace llm {
namespace {

// AdamW keys its state by the parameter's TensorImpl address.
std::string state_key(const torch::Tensor& parameter) { return c10::guts::to_string(parameter.unsafeGetTensorImpl()); }

std::string json_entry(const NamedTensors& checkpoint, const std::string& name, const std::string& source) {
  return tensor_string(find_tensor(checkpoint, name, fmt::format("checkpoint '{}'", source)));
}

}  // namespace

void check_checkpoint_format(const NamedTensors& tensors, const std::string& source) {
  const auto format = std::find_if(tensors.begin(), tensors.end(), [](const auto& e) { return e.first == "format"; });
  if (format == tensors.end()) {
    throw Error(fmt::format("'{}' is not a training checkpoint (it has no 'format' entry; a state dict goes to "
                            "--load-state-dict)",
                            source));
  }
  if (const auto found = tensor_string(format->second); found != kCheckpointFormat) {
    throw Error(fmt::format("'{}': unknown checkpoint format '{}', expected '{}'", source, found, kCheckpointFormat));
  }
}

NamedTensors load_checkpoint(const std::filesystem::path& path) {
  auto tensors = load_tensors(path);
  check_checkpoint_format(tensors, path.string());
  return tensors;
}

GPTConfig checkpoint_model_config(const NamedTensors& checkpoint, const std::string& source) {
  return parse_gpt_config(json_entry(checkpoint, "config/model", source), source + ": config/model");
}

TrainConfig checkpoint_train_config(const NamedTensors& checkpoint, const std::string& source) {
  return parse_train_config(json_entry(checkpoint, "config/train", source), source + ": config/train");
}

NamedTensors with_prefix_removed(const NamedTensors& tensors, const std::string& prefix) {
  NamedTensors out;
  for (const auto& [name, tensor] : tensors) {
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), tensor);
  }
  return out;
}

NamedTensors checkpoint_weights(const NamedTensors& checkpoint) { return with_prefix_removed(checkpoint, "model/"); }

NamedTensors optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module) {
  NamedTensors out;
  auto& states = optimizer.state();
  for (const auto& item : module.named_parameters()) {
    const auto& name = item.key();
    const auto& parameter = item.value();
    const auto it = states.find(state_key(parameter));
    if (it == states.end()) continue;
    const auto& state = static_cast<const torch::optim::AdamWParamState&>(*it->second);
    out.emplace_back(name + "/step", torch::tensor(state.step()));
    out.emplace_back(name + "/exp_avg", state.exp_avg());
    out.emplace_back(name + "/exp_avg_sq", state.exp_avg_sq());
  }
  return out;
}

void load_optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module, const NamedTensors& state,
                          const std::string& source) {
  auto& states = optimizer.state();
  states.clear();
  if (state.empty()) return;  // saved before the first step
  const auto what = fmt::format("checkpoint '{}': optimizer state", source);
  for (const auto& item : module.named_parameters()) {
    const auto& name = item.key();
    const auto& parameter = item.value();
    const auto& steps = find_tensor(state, name + "/step", what);
    const auto& exp_avg = find_tensor(state, name + "/exp_avg", what);
    const auto& exp_avg_sq = find_tensor(state, name + "/exp_avg_sq", what);
    if (steps.numel() != 1 || exp_avg.sizes() != parameter.sizes() || exp_avg_sq.sizes() != parameter.sizes()) {
      throw Error(fmt::format("{} of '{}' does not fit the parameter of shape {}", what, name, shape(parameter)));
    }
    auto entry = std::make_unique<torch::optim::AdamWParamState>();
    entry->step(steps.item<int64_t>());
    entry->exp_avg(exp_avg.to(parameter.options()).clone());
    entry->exp_avg_sq(exp_avg_sq.to(parameter.options()).clone());
    states[state_key(parameter)] = std::move(entry);
  }
}

torch::Tensor rng_state() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_rng_state(const torch::Tensor& state, const std::string& source) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  try {
    generator.set_state(state.contiguous().to(torch::kUInt8));
  } catch (const c10::Error& e) {
    throw Error(fmt::format("checkpoint '{}': rng/cpu is not a generator state ({})", source,
                            e.what_without_backtrace()));
  }
}

}  // namespace llm
