#pragma once

#include <cstdint>
#include <string>

#include "llm/train/task.h"

namespace llm {

/// Pretraining's data: the split, and the tokens of each part.
struct PretrainData {
  TrainValSplit split;
  int64_t train_tokens = 0, val_tokens = 0;
};

/// Lesson 5.2's split of `text`: the first train_ratio of its characters (Unicode
/// code points, as Python's len counts them) and the rest, each tokenized and cut into
/// windows of context_length tokens, stride apart. `source` names it in errors (too
/// little text for a window or a batch). With random windows (config.sampling), every
/// token starts a window, and an epoch draws as many as the text makes without overlap.
PretrainData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source);

/// A pretraining run's data (config.data, see data_path): the text split as above, or
/// a token file (tools/prepare) memory-mapped and split the same way by tokens; with
/// config.val_data, all of it trains and that text or token file validates.
PretrainData load_pretrain_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer);

/// Chapter 5: the next token. The GPT of the model config, a greedy sample of
/// start_context after each epoch.
class PretrainTask final : public Task {
 public:
  static constexpr std::string_view kName = "pretrain";
  std::string_view name() const override { return kName; }
  std::string_view does() const override { return "pretrains"; }
  std::string_view run_kind() const override { return "a pretraining run"; }
  void check_config(const TrainConfig& config, std::string_view source) const override;
  void load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) override;
  LanguageModel make_model(const ModelConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                      const std::string& source, const LessonSeeds& seeds) override;
  bool continues_optimizer() const override { return true; }
  torch::Tensor batch_loss(LanguageModelImpl& model, const Batch& batch) const override;
  void end_epoch(Trainer& trainer, const TrainHooks& hooks) const override;

  int64_t train_tokens() const { return data_.train_tokens; }
  int64_t val_tokens() const { return data_.val_tokens; }

 protected:
  std::vector<std::string_view> own_settings() const override {
    return {"val_data", "train_ratio", "stride", "sampling", "start_context", "max_new_tokens"};
  }

 private:
  PretrainData data_;
};

}  // namespace llm
