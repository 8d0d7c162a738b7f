#include "llm/train/dpo_task.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/train/dpo.h"
#include "llm/train/instruct_task.h"
#include "llm/util/error.h"

namespace llm {
namespace {

// The reference on the policy's device: the trainer moves only the model it trains.
LanguageModelImpl& on_device_of(const LanguageModel& reference, const LanguageModelImpl& policy) {
  auto& model = *reference.ptr();
  if (model.device() != policy.device()) model.to(policy.device());
  return model;
}

}  // namespace

void DpoTask::check_config(const TrainConfig& config, std::string_view source) const {
  FinetuneTask::check_config(config, source);
  if (config.prompt_style != "alpaca") {
    throw Error(fmt::format("{}: prompt_style must be \"alpaca\" for DPO (the notebook's prompts and masks), got "
                            "\"{}\"",
                            source, config.prompt_style));
  }
}

void DpoTask::load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  entries_ = split_preference_data(read_preference_data(path));
  beta_ = config.beta;
  const auto& [train, test, validation] = entries_;
  require_split_sizes(path, train.size(), test.size(), validation.size(), config.batch_size);
  PreferenceCollate collate;
  collate.allowed_max_length = context_length;  // the notebook's 1024, GPT-2's context
  collate.mask_prompt_tokens = config.mask_instructions;
  const auto train_set = std::make_shared<const PreferenceDataset>(train, tokenizer, collate);
  const auto val_set = std::make_shared<const PreferenceDataset>(validation, tokenizer, collate);
  // A text the context cuts would lose its response's end, or all of it (a mean over
  // no tokens, nan): refused, where the notebook would cut it silently.
  const auto check = [&](const PreferenceDataset& set, size_t first) {
    for (int64_t i = 0; i < set.size(); ++i) {
      const auto& tokens = set.tokens(i);
      for (const auto& [which, ids] : {std::pair<const char*, const std::vector<int64_t>*>{"chosen", &tokens.chosen},
                                       {"rejected", &tokens.rejected}}) {
        if (static_cast<int64_t>(ids->size()) <= context_length) continue;
        throw Error(fmt::format("'{}': entry {}: its prompt with the {} response has {} tokens, more than the model's "
                                "context_length {}; shorten it, or use a model with a longer context",
                                path.string(), first + static_cast<size_t>(i), which, ids->size(), context_length));
      }
    }
  };
  check(*train_set, 0);
  check(*val_set, train.size() + test.size());
  split_.train = train_set;
  split_.val = val_set;
}

void DpoTask::adapt_config(TrainConfig& config) const {
  const auto& validation = entries_.validation;
  config.start_context = format_input(validation[std::min<size_t>(2, validation.size() - 1)].entry);
}

// The reference first: its build reseeds and draws as the policy's does, so the
// policy (and its LoRA) draw what they would alone.
LanguageModel DpoTask::make_model(const ModelConfig& model_config, const TrainConfig& config,
                                  const NamedTensors& weights, const std::string& source, const LessonSeeds& seeds) {
  if (resumed_from_.empty()) {
    reference_source_ = config.reference.empty() ? source : config.reference;
  } else if (!config.reference.empty() && config.reference != reference_source_) {
    throw Error(fmt::format("checkpoint '{}' was made with the reference '{}'; reference '{}' would change it "
                            "mid-run",
                            resumed_from_, reference_source_, config.reference));
  }
  reference_ = reference_source_ == source
                   ? base_model(model_config, weights, source, seeds)
                   : base_model(model_config, load_tensors(reference_source_), reference_source_, seeds);
  for (auto& parameter : reference_->parameters()) parameter.set_requires_grad(false);
  reference_->eval();
  fingerprint_ = weights_fingerprint(*reference_);
  if (expected_fingerprint_.defined() && !torch::equal(fingerprint_, expected_fingerprint_)) {
    throw Error(fmt::format("checkpoint '{}' was made with another reference model: the weights of {} have changed",
                            resumed_from_,
                            reference_source_.empty() ? "the seed's model" : fmt::format("'{}'", reference_source_)));
  }
  auto policy = base_model(model_config, weights, source, seeds);
  if (config.uses_lora()) freeze_and_add_lora(*policy, config);
  return policy;
}

torch::Tensor DpoTask::batch_loss(LanguageModelImpl& model, const Batch& batch) const {
  return compute_dpo_loss_batch(preference_batch(batch), model, on_device_of(reference_, model), beta_).loss;
}

torch::Tensor DpoTask::batch_figures(LanguageModelImpl& model, const Batch& batch) const {
  const auto result = compute_dpo_loss_batch(preference_batch(batch), model, on_device_of(reference_, model), beta_);
  return torch::stack({result.loss, result.chosen_rewards, result.rejected_rewards});
}

NamedTensors DpoTask::state() const {
  return {{"reference", string_to_tensor(reference_source_)}, {"reference_fingerprint", fingerprint_}};
}

void DpoTask::restore_state(const NamedTensors& state, const std::string& source) {
  const auto what = fmt::format("checkpoint '{}': task", source);
  resumed_from_ = source;
  reference_source_ = tensor_to_string(find_tensor(state, "reference", what));
  expected_fingerprint_ = find_tensor(state, "reference_fingerprint", what).to(torch::kLong);
}

void DpoTask::end_epoch(Trainer& trainer, const TrainHooks& hooks) const { sample_after_epoch(trainer, hooks); }

torch::Tensor weights_fingerprint(const torch::nn::Module& model) {
  std::vector<int64_t> sums;
  for (const auto& [name, tensor] : state_dict(model)) {
    const auto bytes = tensor.detach().contiguous().cpu();
    const auto type = bytes.element_size() == 8   ? torch::kLong
                      : bytes.element_size() == 4 ? torch::kInt
                      : bytes.element_size() == 2 ? torch::kShort
                                                  : torch::kByte;
    sums.push_back(bytes.view(type).sum(torch::kLong).item<int64_t>());
  }
  return torch::tensor(sums, torch::kLong);
}

}  // namespace llm
