#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "llm/text/instruction_data.h"
#include "llm/train/task.h"

namespace llm {

/// Chapter 7: the responses to instructions. The data are lesson 7.3's: config.data's
/// JSON entries split 85 / 10 / 5 in file order, each text cut to the context, each
/// prompt shorter than it, batched by custom_collate_fn (whose -100 targets the loss
/// leaves out). The model is the pretrained GPT as it is (lesson 7.5), with exercise
/// 7.4's LoRA when config.lora_rank is set; after each epoch, the first validation
/// prompt is continued.
class InstructTask final : public FinetuneTask {
 public:
  static constexpr std::string_view kName = "instruct";
  std::string_view name() const override { return kName; }
  std::string_view does() const override { return "finetunes on instructions"; }
  std::string_view run_kind() const override { return "an instruction-finetuning run"; }
  void load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) override;
  /// The lesson's sample after each epoch continues the first validation entry's prompt.
  void adapt_config(TrainConfig& config) const override;
  LanguageModel make_model(const ModelConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                      const std::string& source, const LessonSeeds& seeds) override;
  torch::Tensor batch_loss(LanguageModelImpl& model, const Batch& batch) const override;
  void end_epoch(Trainer& trainer, const TrainHooks& hooks) const override;

  /// The entries of every split (lesson 7.7 answers the test entries).
  const InstructionSplits& entries() const { return entries_; }
  PromptStyle style() const { return style_; }

 protected:
  std::vector<std::string_view> own_settings() const override {
    return {"prompt_style", "mask_instructions", "max_new_tokens", "lora_rank", "lora_alpha"};
  }

 private:
  InstructionSplits entries_;
  PromptStyle style_ = PromptStyle::kAlpaca;
};

/// An llm::Error naming the data file `path` unless lesson 7.2's split of it (train,
/// test and validation entries) leaves batch_size training entries and a validation
/// entry: chapter 7's check, and the DPO bonus's.
void require_split_sizes(const std::filesystem::path& path, size_t train, size_t test, size_t validation,
                         int64_t batch_size);

}  // namespace llm
