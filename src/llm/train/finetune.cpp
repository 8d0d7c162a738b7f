#include "llm/train/finetune.h"

#include "llm/model/classifier.h"
#include "llm/model/gpt_weights.h"

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

}  // namespace llm
