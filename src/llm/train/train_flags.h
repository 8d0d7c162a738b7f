#pragma once

#include <cxxopts.hpp>

#include <memory>

#include "llm/text/bpe_tokenizer.h"
#include "llm/train/trainer.h"

namespace llm {

/// --train-config FILE and --resume FILE, plus one flag per run setting.
void add_run_flags(cxxopts::Options& options, const std::string& default_train_config = "train-lesson.json");

/// A new run from --train-config and the flags, or with --resume the checkpoint's run
/// continued, its settings changed by the flags given (e.g. more --num-epochs).
std::unique_ptr<Trainer> trainer_from_flags(const cxxopts::ParseResult& args, const BpeTokenizer& tokenizer);

/// --checkpoint FILE, plus the model flags (--config, --load-state-dict, ...).
void add_trained_model_flags(cxxopts::Options& options);

/// The model of --checkpoint (its config and weights), else that of the model flags
/// (an untrained one unless --load-state-dict is given).
GPTModel trained_model_from_flags(const cxxopts::ParseResult& args);

}  // namespace llm
