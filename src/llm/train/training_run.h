#pragma once

#include <memory>
#include <optional>
#include <string>

#include "llm/io/tensor_archive.h"
#include "llm/model/language_model.h"
#include "llm/model/model_config.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/train/distributed.h"
#include "llm/train/task.h"
#include "llm/train/train_config.h"
#include "llm/train/trainer.h"

namespace llm {

/// A training run as asked for, its settings validated, before any data is read: a new
/// run (settings, model config, and the weights it starts from, if any), or a
/// checkpoint's run continued.
struct TrainingRun {
  TrainConfig config;
  ModelConfig model_config;
  /// Set for a data-parallel run.
  std::optional<DistributedConfig> distributed;
  /// The checkpoint to continue, and its file; empty for a new run.
  NamedTensors checkpoint;
  std::string checkpoint_path;
  /// The weights a new run starts from (and lesson 5.4's AdamW state when the file
  /// holds it and the task continues it), and the file; empty for the seed's weights.
  NamedTensors initial_weights;
  std::string initial_weights_path;

  bool resumed() const { return !checkpoint_path.empty(); }
};

/// The trainer of `run`, assembled as the lessons do, in this order: the task reads
/// its data; the process group is joined (a data-parallel run); the task builds the
/// model after the lesson's seeds (LessonSeeds) from the initial weights; AdamW and the
/// loaders are made; a checkpoint's state is restored, or the initial file's AdamW
/// state taken when the task continues it. `task` must be the run's (config.task);
/// `tokenizer` must outlive the trainer.
std::unique_ptr<Trainer> make_trainer(const TrainingRun& run, std::shared_ptr<Task> task,
                                      const BpeTokenizer& tokenizer, torch::Device device = torch::kCPU);

/// Whether a new run from initial weights takes their file's AdamW state too: its
/// task continues it (pretraining) and the file holds it (lesson 5.4's
/// model_and_optimizer.pth).
bool starts_with_optimizer_state(const TrainingRun& run, const Task& task);

/// The model a training checkpoint holds, with its weights: the model of its config
/// (any family), given the shape its task gave it (a classifier's head, a LoRA, frozen
/// as in training). `source` names it in errors. The checkpoint is taken whole, so that
/// each tensor goes once loaded: read what else it holds first.
LanguageModel checkpoint_model(NamedTensors checkpoint, const std::string& source);

}  // namespace llm
