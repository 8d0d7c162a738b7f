#pragma once

#include <cxxopts.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/instruction_data.h"
#include "llm/train/task.h"
#include "llm/train/trainer.h"
#include "llm/train/training_run.h"

namespace llm {

/// One flag per run setting, in the group "Training": --data, --num-epochs, ... (the
/// seed is every executable's --seed). A step that runs one `task` (its name) offers
/// that task's settings only (Task::reads), and no --task; an empty name offers all.
void add_train_flags(cxxopts::Options& options, std::string_view task = {});

/// Sets each run setting whose flag was given, and validates the result when any was.
void apply_train_flags(TrainConfig& config, const cxxopts::ParseResult& args);

/// --rank, --world-size, --local-rank, --master-addr, --master-port, --dist-timeout.
void add_distributed_flags(cxxopts::Options& options);

/// torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT),
/// each overridden by its flag; nullopt when neither WORLD_SIZE nor --world-size is
/// given: a single-process run. A malformed or inconsistent value is an llm::Error.
std::optional<DistributedConfig> distributed_config_from_flags(const cxxopts::ParseResult& args);

/// --train-config FILE, --resume FILE and --load-state-dict FILE, plus one flag per run
/// setting (add_train_flags, for `task`).
void add_run_flags(cxxopts::Options& options, const std::string& default_train_config = "train-lesson.json",
                   std::string_view task = {});

/// The run the flags ask for, its settings validated: a new run from --train-config
/// and the flags, or with --resume the checkpoint's run continued, its settings
/// changed by the flags given (e.g. more --num-epochs). Reads no training data, so
/// that a bad flag is reported before anything slow is loaded. A new run with neither
/// --train-config nor --load-state-dict reads `untrained_config` instead of
/// --train-config's default when one is given (a step whose lesson starts from trained
/// weights runs a small model without them).
TrainingRun training_run_from_flags(const cxxopts::ParseResult& args, const std::string& untrained_config = "");

/// A cli::BadFlagValue unless the run's task is `task`'s: each training step runs the
/// task of its chapter, and says which step runs the others.
void require_task(const TrainingRun& run, const Task& task);

/// The device of the run: --device, and with --device cuda in a data-parallel run, the
/// GPU of this rank's local rank.
torch::Device run_device(const cxxopts::ParseResult& args, const std::optional<DistributedConfig>& distributed);

/// --prompt-style as a PromptStyle (alpaca or phi3); a cli::BadFlagValue otherwise.
PromptStyle prompt_style_flag(const cxxopts::ParseResult& args);

/// --checkpoint FILE and --model-dir DIR, plus the model flags (--config,
/// --load-state-dict, ...).
void add_trained_model_flags(cxxopts::Options& options, const std::string& default_config = "gpt2-small.json");

/// A model to run and the tokenizer of its text.
struct TrainedModel {
  LanguageModel model;
  BpeTokenizer tokenizer;
  /// --model-dir's config.json bos_token_id, when it names one.
  std::optional<int64_t> bos_id;
  /// --checkpoint's run settings (its task, its prompt style), when the model is a checkpoint's.
  std::optional<TrainConfig> run;
};

/// The model the flags name, on --device: --checkpoint's (its config and weights),
/// --model-dir's (a Hugging Face folder, read once: config.json, then tokenizer.json,
/// then the weights) or the model flags' (an untrained model unless --load-state-dict
/// is given). The tokenizer is the folder's, else `default_tokenizer`'s: GPT-2's, or
/// the one a step's lesson uses.
TrainedModel trained_model_from_flags(const cxxopts::ParseResult& args,
                                      const std::function<BpeTokenizer()>& default_tokenizer = BpeTokenizer::gpt2);

/// Where that model's weights come from, for the output: "the checkpoint 'X'", "the
/// Hugging Face folder 'X'", "the state dict 'X'", or "none: an untrained model,
/// random weights of --seed N".
std::string model_source(const cxxopts::ParseResult& args);

}  // namespace llm
