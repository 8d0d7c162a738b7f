#include "llm/model/gpt_weights.h"

#include <algorithm>

#include "llm/io/state_dict.h"

namespace llm {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool is_mask(const std::string& name) {
  const std::string suffix = ".att.mask";
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void load_gpt_weights(GPTModel& model, const NamedTensors& file, const std::string& source) {
  const std::string wrapper = "model_state_dict/";
  const bool wrapped = std::any_of(file.begin(), file.end(), [&](const auto& e) { return starts_with(e.first, wrapper); });
  NamedTensors weights;
  for (const auto& [name, tensor] : file) {
    if (!wrapped) {
      weights.emplace_back(name, tensor);
    } else if (starts_with(name, wrapper)) {
      weights.emplace_back(name.substr(wrapper.size()), tensor);
    }
  }
  for (const auto& [name, buffer] : state_dict(*model)) {
    const bool given = std::any_of(weights.begin(), weights.end(), [&](const auto& e) { return e.first == name; });
    if (!given && is_mask(name)) weights.emplace_back(name, buffer);  // rebuilt: the model's own mask
  }
  load_state_dict(*model, weights, wrapped ? source + ": model_state_dict" : source);
}

}  // namespace llm
