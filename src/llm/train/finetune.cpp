#include "llm/train/finetune.h"

#include <fmt/format.h>

#include "llm/io/state_dict.h"
#include "llm/model/classifier.h"
#include "llm/model/gpt_weights.h"
#include "llm/train/checkpoint.h"
#include "llm/util/linear.h"

namespace llm {

namespace {

// Appendix E's order after the head: every parameter frozen, then, after
// torch.manual_seed(123) and the appendix's accuracy check on 10 batches of each
// split, a LoRA for every Linear. The check's three loaders draw four seeds from the
// generator (the shuffled training loader one for its sampler too): drawn here as
// well, so that each A starts where the appendix's does.
void add_appendix_lora(GPTModel& model, const TrainConfig& config) {
  for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  for (int draw = 0; draw < 4; ++draw) torch::empty({}, torch::kLong).random_();
  add_lora(*model, config.lora_rank, config.lora_alpha);
}

}  // namespace

GPTModel classifier_for_run(const GPTConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                            const std::string& source) {
  const auto seed = static_cast<uint64_t>(config.seed);
  torch::manual_seed(seed);
  GPTModel model(model_config);
  if (!weights.empty()) load_gpt_weights(model, weights, source);
  torch::manual_seed(seed);  // the lesson's seed before the new head's Linear
  make_classifier(model, config.num_classes, config.trainable);
  if (config.uses_lora()) add_appendix_lora(model, config);
  return model;
}

GPTModel instruction_model_for_run(const GPTConfig& model_config, const TrainConfig& config,
                                   const NamedTensors& weights, const std::string& source) {
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  GPTModel model(model_config);
  if (!weights.empty()) load_gpt_weights(model, weights, source);
  if (config.uses_lora()) {
    for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
    add_lora(*model, config.lora_rank, config.lora_alpha);
  }
  return model;
}

GPTModel checkpoint_model(const NamedTensors& checkpoint, const std::string& source) {
  GPTModel model(checkpoint_model_config(checkpoint, source));
  const auto run = checkpoint_train_config(checkpoint, source);
  if (run.classifies()) make_classifier(model, run.num_classes, run.trainable);  // its head's shape
  if (run.uses_lora()) {  // frozen as in training; the weights come next
    for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
    add_lora(*model, run.lora_rank, run.lora_alpha);
  }
  load_state_dict(*model, checkpoint_weights(checkpoint), fmt::format("checkpoint '{}': model", source));
  return model;
}

}  // namespace llm
