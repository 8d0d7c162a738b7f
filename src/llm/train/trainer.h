#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llm/io/tensor_archive.h"
#include "llm/model/language_model.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/train/checkpoint.h"
#include "llm/train/gradient_sync.h"
#include "llm/train/loss.h"
#include "llm/train/metrics.h"
#include "llm/train/ranks.h"
#include "llm/train/run_folder.h"
#include "llm/train/task.h"
#include "llm/train/train_config.h"
#include "llm/util/files.h"

namespace llm {

/// After each optimizer step: what the progress line shows.
struct StepRecord {
  int64_t step = 0;  // optimizer steps done
  int64_t total_steps = 0;
  int64_t epoch = 0;  // from 1
  double loss = 0;    // this step's training loss (mean over its batches)
  double lr = 0;
  int64_t tokens_seen = 0;
  double tokens_per_second = 0;  // since this train() call began
  double seconds_left = 0;
};

/// Where a train() call's step time went: the steps (forward, backward, optimizer)
/// and, within them, waiting for the data loader's next batch.
struct StepTimes {
  double steps_seconds = 0;
  double data_seconds = 0;
  double data_share() const { return steps_seconds > 0 ? data_seconds / steps_seconds : 0.0; }
};

/// What the caller hears of a run.
struct TrainHooks {
  std::function<void(const StepRecord&)> on_step;
  std::function<void(const EvalRecord&)> on_eval;
  /// After each epoch of a task that samples: its number (from 1) and the
  /// start_context continued greedily.
  std::function<void(int64_t epoch, const std::string& sample)> on_sample;
  /// After each epoch of a classification run: its accuracies.
  std::function<void(const AccuracyRecord&)> on_accuracy;
  /// Checked after each optimizer step; true stops the run there, with a checkpoint.
  std::function<bool()> should_stop;
};

/// How a train() call ended.
enum class TrainEnd { kFinished, kMaxSteps, kStopped };

/// Lesson 5.2's train_model_simple, with checkpoints: AdamW on the task's shuffled
/// training examples, an evaluation every eval_freq steps, the task's end-of-epoch
/// output (a greedy sample, or accuracies). The task (task.h) gives the data and the
/// loss of a batch, so the same loop is lesson 6.7's train_classifier_simple and
/// lesson 7.6's finetuning. Every random draw (weights, dropout, data order) is the one
/// PyTorch makes for the same algorithm after the same seed, so the losses equal the
/// reference's.
class Trainer {
 public:
  /// A run of `task` (its data loaded) on `model` (make_trainer in training_run.h
  /// builds both as the lessons do), moved to `device`: AdamW takes all its
  /// parameters, of which frozen ones never step, and the data loaders are made; the
  /// global generator is left as it is. The tokenizer (for the samples) must outlive
  /// the trainer. On CUDA, dropout draws from the CUDA generator, which checkpoints do
  /// not hold: a resumed CUDA run is not bitwise the uninterrupted one.
  ///
  /// With a process group, the run is one rank of a data-parallel run (see
  /// docs/distributed.md): each rank reads its DistributedSampler share of every
  /// epoch, starts from rank 0's weights, and averages the gradients of every step
  /// with the others; evaluation losses are averaged over the ranks, and only rank 0
  /// writes the checkpoint and metrics.
  Trainer(TrainConfig config, std::shared_ptr<Task> task, LanguageModel model, const BpeTokenizer& tokenizer,
          torch::Device device = torch::kCPU, std::shared_ptr<ProcessGroup> group = nullptr);

  /// Continues the run saved in `checkpoint` (see checkpoint.h; the trainer was built
  /// with its model config): its weights, AdamW's state, its place in the epoch, its
  /// history and the generator's state. `source` names it in errors.
  void resume(const NamedTensors& checkpoint, const std::string& source);

  /// Puts lesson 5.4's AdamW state, the "optimizer_state_dict/" entries of `file` (read
  /// by load_tensors: model_and_optimizer.pth), into this new run's optimizer. `source`
  /// names it in errors.
  void load_optimizer_state(const NamedTensors& file, const std::string& source);

  /// Trains until the last epoch ends, max_steps is reached or hooks.should_stop says
  /// so; then writes the checkpoint (when out_dir is set). From its first call, the
  /// trainer holds a lock on out_dir: a second run into the same folder is refused. A non-finite loss throws an
  /// llm::Error naming the step, leaving the last checkpoint as it was.
  TrainEnd train(const TrainHooks& hooks = {});

  /// Everything a checkpoint holds (checkpoint.h), as an archive.
  NamedTensors checkpoint() const;

  /// The run's folder (out_dir): its checkpoint and metrics files.
  const RunFolder& folder() const { return folder_; }
  std::filesystem::path checkpoint_path() const { return folder_.checkpoint_path(); }
  std::filesystem::path metrics_path() const { return folder_.metrics_path(); }

  /// The greedy continuation of start_context by max_new_tokens tokens (eval mode,
  /// restored after).
  std::string sample();

  /// Adds an epoch's accuracies to the run's history (a classifier's end of epoch).
  void add_accuracy(const AccuracyRecord& record) { progress_.accuracies.push_back(record); }

  LanguageModel& model() { return model_; }
  const LanguageModel& model() const { return model_; }
  const TrainConfig& config() const { return config_; }
  const TrainingProgress& progress() const { return progress_; }
  /// The last train() call's step time and data-loading time.
  const StepTimes& step_times() const { return times_; }
  const Task& task() const { return *task_; }
  const BpeTokenizer& tokenizer() const { return tokenizer_; }
  const DataLoader& train_loader() const { return *train_loader_; }
  const DataLoader& val_loader() const { return *val_loader_; }
  /// The task's loss of one batch.
  const BatchLoss& batch_loss() const { return batch_loss_; }
  /// Whether this process speaks for the run: rank 0, or the only process.
  bool is_main() const { return !group_ || group_->is_main(); }
  /// The process group of a data-parallel run (null in a single-process run).
  const std::shared_ptr<ProcessGroup>& group() const { return group_; }
  /// The largest difference of any weight on any rank from rank 0's (0 when they are
  /// identical, and in a single-process run). Every rank must call it.
  double rank_divergence() { return llm::rank_divergence(group_.get(), *model_); }
  /// Optimizer steps per epoch, in all the epochs, and in the whole run (all the
  /// epochs', or fewer when --max-steps stops it before).
  int64_t steps_per_epoch() const;
  int64_t steps_of_all_epochs() const;
  int64_t total_steps() const;

 private:
  void start(torch::Device device);
  DataLoader::Iterator start_epoch();
  double train_step(DataLoader::Iterator& batch);
  StepRecord step_record(double step_loss, double seconds, const TrainingProgress& at_start) const;
  EvalRecord evaluate();
  bool max_steps_reached() const { return config_.max_steps > 0 && progress_.step >= config_.max_steps; }
  double current_lr() const;
  bool writes_files() const { return folder_.writes() && is_main(); }
  void save_checkpoint() const;

  TrainConfig config_;
  std::shared_ptr<Task> task_;
  const BpeTokenizer& tokenizer_;
  LanguageModel model_{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  std::unique_ptr<DataLoader> train_loader_, val_loader_;
  BatchLoss batch_loss_;  // the task's
  std::shared_ptr<ProcessGroup> group_;
  std::unique_ptr<GradientSync> gradient_sync_;
  TrainingProgress progress_;  // all of it goes into a checkpoint
  StepTimes times_;
  RunFolder folder_;
};

}  // namespace llm
