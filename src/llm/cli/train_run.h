#pragma once

#include <cxxopts.hpp>

#include <string>
#include <vector>

#include "llm/cli/train_flags.h"
#include "llm/train/trainer.h"
#include "llm/util/error.h"
#include "llm/util/progress.h"

namespace llm {

/// The output flags every training executable has: --no-plot and --progress.
void add_training_output_flags(cxxopts::Options& options);

/// Checks the output flags' values (--progress: auto, always or never), a
/// cli::BadFlagValue otherwise: called before anything slow is loaded.
void check_training_output_flags(const cxxopts::ParseResult& args);

/// Whether --progress asks for the live progress line, which only rank 0 draws.
bool progress_wanted(const cxxopts::ParseResult& args, const Trainer& trainer);

/// The live progress line of each step, the stop requests of Ctrl-C and SIGTERM, and
/// the lesson's "Ep 1 (Step 000000): Train loss ..., Val loss ..." lines.
TrainHooks lesson_hooks(ProgressLine& progress, const Trainer& trainer);

/// How a run that a signal stopped ends: its exit code, and how to continue it.
Stopped stopped_run(const Trainer& trainer);

/// A finetuning run's first lines: where its weights come from ("none: an untrained
/// GPT, random weights of seed N", pointing at scripts/download-gpt2.sh `gpt2_size`),
/// appendix E's three counts when it has a LoRA, and the model: its parameters, how
/// many train and why (`trainable`: what trains without LoRA), its shape.
void print_finetuned_model(const Trainer& trainer, const TrainingRun& run, const std::string& gpt2_size,
                           const std::string& trainable);

/// --save-state-dict: the model's weights as a PyTorch state dict, a LoRA merged
/// into them (merged_state_dict); prints "<label> FILE".
void save_finetuned_state_dict(const cxxopts::ParseResult& args, const Trainer& trainer, const std::string& label);

/// Draws a plot with a script of scripts/ (/usr/bin/python3, matplotlib), unless
/// --no-plot; prints "Plot: FILE", or why it was not drawn.
void draw_plot(const cxxopts::ParseResult& args, const std::string& script, const std::vector<std::string>& inputs,
               const std::string& out);

}  // namespace llm
