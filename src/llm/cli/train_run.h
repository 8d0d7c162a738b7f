#pragma once

#include <cxxopts.hpp>

#include <string>
#include <vector>

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

/// Draws a plot with a script of scripts/ (/usr/bin/python3, matplotlib), unless
/// --no-plot; prints "Plot: FILE", or why it was not drawn.
void draw_plot(const cxxopts::ParseResult& args, const std::string& script, const std::vector<std::string>& inputs,
               const std::string& out);

}  // namespace llm
