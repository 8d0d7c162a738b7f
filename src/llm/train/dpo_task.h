#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/text/preference_data.h"
#include "llm/train/task.h"

namespace llm {

/// The ch07/04 bonus: Direct Preference Optimization. The data are the notebook's
/// config.data (instruction-data-with-preference.json) split 85 / 10 / 5 in file order,
/// batched by its custom_collate_fn (masks on the responses; on the prompt too with
/// mask_instructions, the notebook's mask_prompt_tokens). The policy starts from the
/// run's weights (the instruction-finetuned model), with a LoRA when config.lora_rank
/// is set; the reference is the same model, or config.reference's weights, frozen and
/// in eval mode. A checkpoint names the reference by its file and a fingerprint of its
/// weights instead of holding a copy, and a resumed run checks both. The loss is
/// compute_dpo_loss_batch at config.beta; each evaluation also reports the chosen and
/// rejected rewards. After each epoch, the third validation prompt is continued, as
/// the notebook's start_context.
class DpoTask final : public FinetuneTask {
 public:
  static constexpr std::string_view kName = "dpo";
  std::string_view name() const override { return kName; }
  std::string_view does() const override { return "tunes preferences with DPO"; }
  std::string_view run_kind() const override { return "a preference-tuning run"; }
  void check_config(const TrainConfig& config, std::string_view source) const override;
  void load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) override;
  void adapt_config(TrainConfig& config) const override;
  LanguageModel make_model(const ModelConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                           const std::string& source, const LessonSeeds& seeds) override;
  torch::Tensor batch_loss(LanguageModelImpl& model, const Batch& batch) const override;
  std::vector<std::string> figure_names() const override { return {"chosen_reward", "rejected_reward"}; }
  torch::Tensor batch_figures(LanguageModelImpl& model, const Batch& batch) const override;
  /// The chosen texts' tokens, as the notebook's tokens_seen counts them.
  int64_t seen(const Batch& batch) const override { return batch.inputs.numel() / 2; }
  NamedTensors state() const override;
  void restore_state(const NamedTensors& state, const std::string& source) override;
  void end_epoch(Trainer& trainer, const TrainHooks& hooks) const override;

  const PreferenceSplits& entries() const { return entries_; }
  /// The frozen reference model (after make_model), and where its weights came from
  /// ("" for the seed's).
  LanguageModelImpl& reference() const { return *reference_.ptr(); }
  const std::string& reference_source() const { return reference_source_; }

 protected:
  std::vector<std::string_view> own_settings() const override {
    return {"mask_instructions", "beta", "reference", "max_new_tokens", "lora_rank", "lora_alpha"};
  }

 private:
  PreferenceSplits entries_;
  double beta_ = 0.1;
  LanguageModel reference_{nullptr};
  std::string reference_source_;
  torch::Tensor fingerprint_, expected_fingerprint_;  // expected: a resumed run's
  std::string resumed_from_;
};

/// A fingerprint of a model's weights: per state-dict tensor, the exact sum of its
/// elements' bits read as integers. Another file's weights give another one, unless
/// their changes cancel out (weights swapped, say).
torch::Tensor weights_fingerprint(const torch::nn::Module& model);

}  // namespace llm
