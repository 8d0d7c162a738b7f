#include "llm/reference/recording.h"

#include <fmt/format.h>

#include "llm/model/gpt_model.h"
#include "llm/model/model_config.h"
#include "llm/util/error.h"

namespace llm {

torch::Tensor fingerprint(const torch::Tensor& tensor) {
  const auto bits = tensor.detach().cpu().contiguous().flatten().view(torch::kInt32).to(torch::kLong);
  const auto weights = torch::arange(bits.numel(), torch::kLong) * static_cast<int64_t>(2654435761) + 1;
  return (bits * weights).sum();
}

NamedTensors fingerprints(const torch::nn::Module& module) {
  NamedTensors out;
  for (const auto& [name, tensor] : state_dict(module)) out.emplace_back("fingerprint/" + name, fingerprint(tensor));
  return out;
}

NamedTensors model_header(const std::string& kind, uint64_t seed, const GPTConfig& c) {
  NamedTensors header = {{"kind", string_to_tensor(kind)}, {"seed", torch::tensor(static_cast<int64_t>(seed))}};
  for (const auto& field : gpt_config_fields()) {
    std::visit(
        [&](auto member) {
          const auto& value = c.*member;
          const auto key = "config/" + std::string(field.key);
          if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
            header.emplace_back("config/gqa", torch::tensor(value == "gqa"));  // the reference's spelling
            if (value == "mla") header.emplace_back("config/mla", torch::tensor(true));
          } else if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::optional<double>>) {
            if (value) header.emplace_back(key, torch::tensor(*value, torch::kDouble));  // unset: drop_rate
          } else if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::optional<int64_t>>) {
            if (value) header.emplace_back(key, torch::tensor(*value));  // unset: the default
          } else if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>) {
            header.emplace_back(key, torch::tensor(value, torch::kDouble));
          } else {
            header.emplace_back(key, torch::tensor(value));
          }
        },
        field.member);
  }
  return header;
}

NamedTensors model_header(const std::string& kind, uint64_t seed, const LanguageModelImpl& model) {
  if (model.family() == GPTModelImpl::kFamily) {
    return model_header(kind, seed, GPTModelImpl::config_from_json(model.config_json(), "the model"));
  }
  return {{"kind", string_to_tensor(kind)},
          {"seed", torch::tensor(static_cast<int64_t>(seed))},
          {"config_json", string_to_tensor(model_config_json(model).dump())}};
}

NamedTensors attention_header(const std::string& kind, uint64_t seed, const AttentionOptions& o) {
  return {{"kind", string_to_tensor(kind)},
          {"seed", torch::tensor(static_cast<int64_t>(seed))},
          {"config/d_in", torch::tensor(o.d_in())},
          {"config/d_out", torch::tensor(o.d_out())},
          {"config/context_length", torch::tensor(o.context_length())},
          {"config/num_heads", torch::tensor(o.num_heads())},
          {"config/num_kv_groups", torch::tensor(o.kv_heads())},
          {"config/dropout", torch::tensor(o.dropout(), torch::kDouble)},
          {"config/qkv_bias", torch::tensor(o.qkv_bias())}};
}

void record_weights(NamedTensors& archive, const torch::nn::Module& model) {
  for (const auto& [name, tensor] : state_dict(model)) archive.emplace_back("model/" + name, tensor.cpu());
}

NamedTensors record_sampling(const LanguageModelImpl& model, uint64_t seed, const SamplingOptions& sampling,
                             const torch::Tensor& prompt, const torch::Tensor& generated) {
  auto archive = model_header("sample", seed, model);
  archive.insert(archive.end(), {{"prompt", prompt.cpu()},
                                 {"generated", generated.cpu()},
                                 {"max_new_tokens", torch::tensor(sampling.max_new_tokens())},
                                 {"temperature", torch::tensor(sampling.temperature(), torch::kDouble)},
                                 {"top_k", torch::tensor(sampling.top_k())},
                                 {"eos_id", torch::tensor(sampling.eos_id().value_or(-1))}});
  record_weights(archive, model);
  return archive;
}

}  // namespace llm
