#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "llm/model/classifier.h"
#include "llm/text/classification_dataset.h"
#include "llm/train/metrics.h"
#include "llm/train/task.h"

namespace llm {

/// Chapter 6: a class per text. The data are lesson 6.3's: the labelled texts of
/// train.csv and validation.csv in config.data's folder, and test.csv's for the final
/// accuracy, padded to max_length or the longest training text, which must fit in the
/// context. The model is lesson 6.5's classifier (make_classifier) of the pretrained
/// GPT; the loss is the class loss of config.class_token's logits; examples are counted
/// instead of tokens; after each epoch come lesson 6.7's accuracies on eval_iter
/// batches of each split.
class ClassifyTask final : public FinetuneTask {
 public:
  static constexpr std::string_view kName = "classify";
  std::string_view name() const override { return kName; }
  std::string_view does() const override { return "classifies"; }
  std::string_view run_kind() const override { return "a classification run"; }
  void load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) override;
  /// The texts' padded length, kept for classifying later.
  void adapt_config(TrainConfig& config) const override { config.max_length = max_length_; }
  LanguageModel make_model(const ModelConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                      const std::string& source, const LessonSeeds& seeds) override;
  void shape_model(LanguageModelImpl& model, const TrainConfig& config) const override;
  torch::Tensor batch_loss(LanguageModelImpl& model, const Batch& batch) const override;
  int64_t seen(const Batch& batch) const override { return batch.inputs.size(0); }
  std::string_view seen_unit() const override { return "ex"; }
  void end_epoch(Trainer& trainer, const TrainHooks& hooks) const override;

  /// Lesson 6.7's calc_accuracy_loader on the first `num_batches` batches of the
  /// training and validation splits (all of them when not given), in that order (each
  /// pass draws from the global generator, as PyTorch's loaders do), averaged over the
  /// ranks. Like the lesson, it leaves the model in eval mode.
  AccuracyRecord accuracy(Trainer& trainer, std::optional<int64_t> num_batches = std::nullopt) const;
  /// The test split's accuracy on its first `num_batches` batches (all when not given),
  /// as lessons 6.6 and 6.7 report it.
  double test_accuracy(LanguageModelImpl& model, std::optional<int64_t> num_batches = std::nullopt) const;

  /// The test split, in order, on every rank.
  const DataLoader& test_loader() const { return *test_loader_; }
  int64_t max_length() const { return max_length_; }

 protected:
  std::vector<std::string_view> own_settings() const override {
    return {"num_classes", "trainable", "class_token", "max_length", "lora_rank", "lora_alpha"};
  }

 private:
  ClassToken token_ = ClassToken::kLast;
  int64_t max_length_ = 0;
  std::unique_ptr<DataLoader> test_loader_;
};

}  // namespace llm
