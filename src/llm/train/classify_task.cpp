#include "llm/train/classify_task.h"

#include <fmt/format.h>

#include "llm/text/labelled_examples.h"
#include "llm/train/loss.h"
#include "llm/train/ranks.h"
#include "llm/train/trainer.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

void ClassifyTask::load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  token_ = parse_class_token(config.class_token);
  const auto path = data_path(config);
  const auto split = [&](const char* name, std::optional<int64_t> max_length) {
    const auto file = path / name;
    auto dataset = std::make_shared<const ClassificationDataset>(read_examples_csv(file), tokenizer, max_length,
                                                                 fmt::format("'{}'", file.string()));
    if (const auto label = dataset->labels().max().item<int64_t>(); label >= config.num_classes) {
      throw Error(fmt::format("'{}': label {}, but the head has num_classes {}; expected labels 0..{}", file.string(),
                              label, config.num_classes, config.num_classes - 1));
    }
    return dataset;
  };
  auto train = split("train.csv", config.max_length > 0 ? std::optional<int64_t>(config.max_length) : std::nullopt);
  if (train->max_length() > context_length) {  // the lesson's assert, and what to do about it
    throw Error(fmt::format("'{}': the longest training text has {} tokens, more than the model's context_length {}; "
                            "set max_length to at most {} to cut the texts",
                            (path / "train.csv").string(), train->max_length(), context_length, context_length));
  }
  if (train->size() < config.batch_size) {
    throw Error(fmt::format("'{}': {} examples, fewer than batch_size {}; use a smaller batch_size",
                            (path / "train.csv").string(), train->size(), config.batch_size));
  }
  max_length_ = train->max_length();
  split_.val = split("validation.csv", max_length_);
  const auto in_order = DataLoaderOptions(config.batch_size).shuffle(false).drop_last(false);
  test_loader_ = std::make_unique<DataLoader>(split("test.csv", max_length_), in_order);
  split_.train = std::move(train);
}

// Lessons 6.4-6.5: the pretrained model, then the head after the lesson's seed, then
// appendix E's LoRA after its own.
LanguageModel ClassifyTask::make_model(const ModelConfig& model_config, const TrainConfig& config,
                                  const NamedTensors& weights, const std::string& source,
                                  const LessonSeeds& seeds) {
  auto model = base_model(model_config, weights, source, seeds);
  seeds.before_head();
  make_classifier(*model, config.num_classes, config.trainable);
  if (config.uses_lora()) {
    seeds.before_lora();
    freeze_and_add_lora(*model, config);
  }
  return model;
}

void ClassifyTask::shape_model(LanguageModelImpl& model, const TrainConfig& config) const {
  make_classifier(model, config.num_classes, config.trainable);
  FinetuneTask::shape_model(model, config);
}

torch::Tensor ClassifyTask::batch_loss(LanguageModelImpl& model, const Batch& batch) const {
  return calc_class_loss_batch(model, batch, token_);
}

void ClassifyTask::end_epoch(Trainer& trainer, const TrainHooks& hooks) const {
  auto record = accuracy(trainer, trainer.config().eval_iter);
  trainer.model()->train();  // the lesson's model.train() at the next epoch's start
  record.epoch = trainer.progress().epoch + 1;
  trainer.add_accuracy(record);
  if (hooks.on_accuracy) hooks.on_accuracy(record);
}

AccuracyRecord ClassifyTask::accuracy(Trainer& trainer, std::optional<int64_t> num_batches) const {
  AccuracyRecord record;
  // In this order: each pass draws from the generator.
  const double train = calc_accuracy_loader(*trainer.model(), trainer.train_loader(), num_batches, token_);
  const double val = calc_accuracy_loader(*trainer.model(), trainer.val_loader(), num_batches, token_);
  std::tie(record.train_accuracy, record.val_accuracy) = mean_over_ranks(trainer.group().get(), train, val);
  record.epoch = trainer.progress().epoch;
  record.examples_seen = trainer.progress().tokens_seen;
  return record;
}

double ClassifyTask::test_accuracy(LanguageModelImpl& model, std::optional<int64_t> num_batches) const {
  return calc_accuracy_loader(model, test_loader(), num_batches, token_);
}

}  // namespace llm
