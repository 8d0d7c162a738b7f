#include "llm/train/finetune.h"

#include <fmt/format.h>

#include "llm/io/state_dict.h"
#include "llm/model/classifier.h"
#include "llm/model/gpt_weights.h"
#include "llm/train/checkpoint.h"

namespace llm {

GPTModel classifier_for_run(const GPTConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                            const std::string& source) {
  const auto seed = static_cast<uint64_t>(config.seed);
  torch::manual_seed(seed);
  GPTModel model(model_config);
  if (!weights.empty()) load_gpt_weights(model, weights, source);
  torch::manual_seed(seed);  // the lesson's seed before the new head's Linear
  make_classifier(model, config.num_classes, config.trainable);
  return model;
}

GPTModel checkpoint_model(const NamedTensors& checkpoint, const std::string& source) {
  GPTModel model(checkpoint_model_config(checkpoint, source));
  if (const auto run = checkpoint_train_config(checkpoint, source); run.classifies()) {
    make_classifier(model, run.num_classes, run.trainable);  // its head's shape; the weights come next
  }
  load_state_dict(*model, checkpoint_weights(checkpoint), fmt::format("checkpoint '{}': model", source));
  return model;
}

}  // namespace llm
