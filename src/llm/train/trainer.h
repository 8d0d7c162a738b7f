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
#include "llm/model/gpt_model.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/train/distributed.h"
#include "llm/train/metrics.h"
#include "llm/train/train_config.h"

namespace llm {

/// Lesson 5.2's data: the first train_ratio of the text's characters (Unicode code
/// points, as Python's len counts them) and the rest, each tokenized and cut into
/// windows of context_length tokens, stride apart.
struct TrainValData {
  std::shared_ptr<const SlidingWindowDataset> train, val;
  int64_t train_tokens = 0, val_tokens = 0;
};
TrainValData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source);

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
  /// After each epoch: its number (from 1) and the start_context continued greedily.
  std::function<void(int64_t epoch, const std::string& sample)> on_sample;
  /// Checked after each optimizer step; true stops the run there, with a checkpoint.
  std::function<bool()> should_stop;
};

/// How a train() call ended.
enum class TrainEnd { kFinished, kMaxSteps, kStopped };

/// Lesson 5.2's train_model_simple, with checkpoints: AdamW on the lesson's shuffled
/// training windows, an evaluation every eval_freq steps, a greedy sample after each
/// epoch. Every random draw (weights, dropout, data order) is the one PyTorch makes
/// for the same algorithm after the same seed, so the losses equal the reference's.
class Trainer {
 public:
  /// A new run: seeds the global generator with config.seed, builds the model (on the
  /// CPU, with the CPU generator's weights, then moved to `device`), the optimizer and
  /// the data. `tokenizer` must outlive the trainer. On CUDA, dropout draws from the
  /// CUDA generator, which checkpoints do not hold: a resumed CUDA run is not bitwise
  /// the uninterrupted one.
  ///
  /// With a process group, the run is one rank of a data-parallel run (see
  /// docs/distributed.md): each rank reads its DistributedSampler share of every
  /// epoch, starts from rank 0's weights, and averages the gradients of every step
  /// with the others; evaluation losses are averaged over the ranks, and only rank 0
  /// writes the checkpoint and metrics.
  Trainer(TrainConfig config, const GPTConfig& model_config, const BpeTokenizer& tokenizer,
          torch::Device device = torch::kCPU, std::shared_ptr<ProcessGroup> group = nullptr);

  /// A run continued from `checkpoint` (see checkpoint.h), with `config` as the run
  /// settings (the checkpoint's, possibly changed, e.g. more epochs).
  Trainer(TrainConfig config, const NamedTensors& checkpoint, const std::string& source,
          const BpeTokenizer& tokenizer, torch::Device device = torch::kCPU,
          std::shared_ptr<ProcessGroup> group = nullptr);

  /// Trains until the last epoch ends, max_steps is reached or hooks.should_stop says
  /// so; then writes the checkpoint (when out_dir is set). A non-finite loss throws an
  /// llm::Error naming the step, leaving the last checkpoint as it was.
  TrainEnd train(const TrainHooks& hooks = {});

  /// Everything a checkpoint holds, and writing it atomically to `path`.
  NamedTensors checkpoint() const;
  void save_checkpoint(const std::filesystem::path& path) const;

  /// out_dir/checkpoint.pt and out_dir/metrics.jsonl; empty when out_dir is "".
  std::filesystem::path checkpoint_path() const;
  std::filesystem::path metrics_path() const;

  /// The greedy continuation of start_context by sample_tokens tokens (eval mode,
  /// restored after).
  std::string sample();

  GPTModel& model() { return model_; }
  const TrainConfig& config() const { return config_; }
  const std::vector<EvalRecord>& history() const { return history_; }
  int64_t step() const { return step_; }
  int64_t tokens_seen() const { return tokens_seen_; }
  /// The last train() call's step time and data-loading time.
  const StepTimes& step_times() const { return times_; }
  const TrainValData& data() const { return data_; }
  /// Whether this process speaks for the run: rank 0, or the only process.
  bool is_main() const { return !group_ || group_->is_main(); }
  /// The process group of a data-parallel run (null in a single-process run).
  const std::shared_ptr<ProcessGroup>& group() const { return group_; }
  /// The largest difference of any weight on any rank from rank 0's (0 when they are
  /// identical, and in a single-process run). Every rank must call it.
  double rank_divergence();
  /// Optimizer steps per epoch and in the whole run.
  int64_t steps_per_epoch() const;
  int64_t total_steps() const;

 private:
  EvalRecord evaluate();
  bool writes_files() const { return !config_.out_dir.empty() && is_main(); }

  TrainConfig config_;
  const BpeTokenizer& tokenizer_;
  GPTModel model_{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  TrainValData data_;
  std::unique_ptr<DataLoader> train_loader_, val_loader_;
  std::shared_ptr<ProcessGroup> group_;
  std::unique_ptr<GradientSync> gradient_sync_;

  // Where the run is; all of it goes into a checkpoint.
  StepTimes times_;
  int64_t step_ = 0;    // optimizer steps done
  int64_t epoch_ = 0;   // the epoch under way, from 0
  int64_t batch_ = 0;   // batches of it used
  torch::Tensor order_; // its window order (undefined until it starts)
  int64_t tokens_seen_ = 0;
  std::vector<EvalRecord> history_;
};

}  // namespace llm
