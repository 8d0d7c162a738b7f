#include "llm/train/training_run.h"

#include <fmt/format.h>

#include "llm/io/state_dict.h"
#include "llm/train/checkpoint.h"
#include "llm/train/lesson_seeds.h"

namespace llm {

std::unique_ptr<Trainer> make_trainer(const TrainingRun& run, std::shared_ptr<Task> task,
                                      const BpeTokenizer& tokenizer, torch::Device device) {
  task->load_data(run.config, run.model_config.shape().context_length, tokenizer);
  auto group = run.distributed ? std::make_shared<ProcessGroup>(*run.distributed) : nullptr;
  auto config = run.config;
  task->adapt_config(config);
  const LessonSeeds seeds(config.seed);
  if (run.resumed()) task->restore_state(with_prefix_removed(run.checkpoint, "task/"), run.checkpoint_path);
  auto model = task->make_model(run.model_config, config, run.initial_weights, run.initial_weights_path, seeds);
  auto trainer = std::make_unique<Trainer>(std::move(config), task, std::move(model), tokenizer, device,
                                           std::move(group));
  if (run.resumed()) trainer->resume(run.checkpoint, run.checkpoint_path);
  if (starts_with_optimizer_state(run, *task)) {
    trainer->load_optimizer_state(run.initial_weights, run.initial_weights_path);
  }
  return trainer;
}

bool starts_with_optimizer_state(const TrainingRun& run, const Task& task) {
  return task.continues_optimizer() && !with_prefix_removed(run.initial_weights, "optimizer_state_dict/").empty();
}

LanguageModel checkpoint_model(NamedTensors checkpoint, const std::string& source) {
  auto model = checkpoint_model_config(checkpoint, source).make();
  const auto run = checkpoint_train_config(checkpoint, source);
  make_task(run.task)->shape_model(*model, run);
  auto weights = checkpoint_weights(checkpoint);
  checkpoint.clear();  // `weights` holds the model's tensors now; the optimizer's go
  load_state_dict(*model, std::move(weights), fmt::format("checkpoint '{}': model", source));
  return model;
}

}  // namespace llm
