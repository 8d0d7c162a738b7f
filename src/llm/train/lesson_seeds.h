#pragma once

#include <cstdint>

namespace llm {

/// Every torch.manual_seed of a training run, where the lessons call it. A run builds
/// one and calls its steps in this order; no other code of a run seeds the global
/// generator, so LibTorch draws what PyTorch draws for the same lesson:
///
///   lesson                       seeds before                  step here
///   5.2  train_model_simple      GPTModel                      before_model
///   6.4  the pretrained GPT      GPTModel                      before_model
///   6.5  the classification head the new out_head Linear       before_head
///   6.6  accuracy before training the first calc_accuracy_loader before_checks
///   6.7  train_classifier_simple the optimizer and the loop    before_training
///   E.4  the LoRA layers         replace_linear_with_lora      before_lora
///   7.5  the loss before training the first calc_loss_loader   before_checks
///   7.6  train_model_simple      the optimizer and the loop    before_training
///
/// (7.5 loads GPT-2's weights into a model built after the notebook's earlier seed,
/// which before_model stands for.)
class LessonSeeds {
 public:
  explicit LessonSeeds(int64_t seed) : seed_(seed) {}

  void before_model() const { reseed(); }
  void before_head() const { reseed(); }
  void before_checks() const { reseed(); }
  void before_training() const { reseed(); }
  /// Appendix E seeds, then checks the classifier's accuracy on 10 batches of each
  /// split before it adds the LoRA. Those three loaders draw four seeds from the
  /// generator (the shuffled training loader one more for its sampler): drawn here too,
  /// without the check, so that each LoRA A starts where the appendix's does.
  void before_lora() const;

 private:
  void reseed() const;

  int64_t seed_;
};

}  // namespace llm
