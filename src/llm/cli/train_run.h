#pragma once

#include <cxxopts.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "llm/cli/train_flags.h"
#include "llm/train/task.h"
#include "llm/train/trainer.h"
#include "llm/train/training_run.h"
#include "llm/util/error.h"
#include "llm/util/progress.h"

namespace llm {

/// The output flags every training executable has: --no-plot and --progress.
void add_training_output_flags(cxxopts::Options& options);

/// How a run's train() call went, for the lines after it.
struct TrainOutcome {
  TrainEnd end = TrainEnd::kFinished;
  int64_t first_step = 0;  // the optimizer steps done before it
  double seconds = 0;      // its wall time
};

/// A training step's own lines around the run all training steps share. All but the
/// task are optional.
struct TrainingStep {
  /// The task of the step's chapter; the run's config must name it.
  std::shared_ptr<Task> task;
  /// The "kind" entry of the --save-outputs archive, which compare.py reads.
  std::string kind;
  /// The run config (in configs/) of a new run given neither --train-config nor
  /// --load-state-dict, when the lesson's run starts from trained weights: a small
  /// model, whose first line says so. Empty: --train-config's default.
  std::string untrained_config;
  /// Checks of the step's own flags against the run, before anything slow is loaded.
  std::function<void(const TrainingRun&)> check;
  /// The run's first lines.
  std::function<void(const Trainer&, const TrainingRun&)> print_run;
  /// A new run's lesson lines before training; what they computed goes into the
  /// --save-outputs archive.
  std::function<NamedTensors(Trainer&)> before_training;
  /// The lesson's line after each evaluation; unset, lesson 5.2's "Ep 1 (Step
  /// 000000): Train loss 9.783, Val loss 9.927".
  std::function<std::string(const EvalRecord&)> eval_line;
  /// The lesson's lines after training.
  std::function<void(Trainer&, const TrainOutcome&)> after_training;
  /// Rank 0's files beside the checkpoint (the archive comes after them).
  std::function<void(Trainer&)> write_outputs;
};

/// The main of every training step, around `step`'s lines: the flags checked (the
/// run's task must be step.task's), GPT-2's tokenizer, the trainer (make_trainer),
/// only rank 0 printing, the progress line, Ctrl-C and SIGTERM as stop requests with a
/// checkpoint, the lesson's "Ep 1 (Step 000000): ..." lines and the task's samples or
/// accuracies, then rank 0's files and the --save-outputs archive (the checkpoint's
/// entries, `kind` and before_training's). A run a signal stopped ends in
/// llm::Stopped, which says how to continue it.
void run_training_step(const cxxopts::ParseResult& args, const TrainingStep& step);

/// A share as the lessons print accuracies: "97.50%".
std::string percent(double share);

/// A finetuning run's first lines: where its weights come from ("none: an untrained
/// GPT, random weights of seed N", pointing at scripts/download-gpt2.sh `gpt2_size`),
/// appendix E's three counts when it has a LoRA, and the model: its parameters, how
/// many train and why (`trainable`: what trains without LoRA), its shape.
void print_finetuned_model(const Trainer& trainer, const TrainingRun& run, const std::string& gpt2_size,
                           const std::string& trainable);

/// --save-state-dict: the model's weights as a PyTorch state dict, a LoRA merged
/// into them (merged_state_dict); prints "<label> FILE".
void save_finetuned_state_dict(const cxxopts::ParseResult& args, const Trainer& trainer, const std::string& label);

/// A run's plan: "Run: N epochs of M steps, batch, lr, weight decay, seed" (and where
/// --max-steps stops it), the data-parallel world when there is one, and where a
/// resumed run resumes.
void print_run_plan(const Trainer& trainer);

/// A pretraining run's folder, when it writes one: prints its checkpoint and metrics
/// files, and draws the losses (scripts/plot_losses.py) into losses.png there.
void report_run_folder(const cxxopts::ParseResult& args, const Trainer& trainer);

/// Draws a plot with a script of scripts/ (/usr/bin/python3, matplotlib), unless
/// --no-plot; prints "Plot: FILE", or why it was not drawn.
void draw_plot(const cxxopts::ParseResult& args, const std::string& script, const std::vector<std::string>& inputs,
               const std::string& out);

}  // namespace llm
