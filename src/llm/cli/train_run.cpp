#include "llm/cli/train_run.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/io/state_dict.h"
#include "llm/model/classifier.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/process.h"
#include "llm/util/show.h"

namespace llm {

void print_finetuned_model(const Trainer& trainer, const TrainingRun& run, const std::string& gpt2_size,
                           const std::string& trainable) {
  const auto& config = trainer.config();
  if (run.initial_weights_path.empty() && run.checkpoint_path.empty()) {
    fmt::print("Weights: none: an untrained GPT, random weights of seed {} (--load-state-dict takes GPT-2's: "
               "scripts/download-gpt2.sh {})\n",
               config.seed, gpt2_size);
  } else {
    fmt::print("Weights: '{}'\n", run.checkpoint_path.empty() ? run.initial_weights_path : run.checkpoint_path);
  }
  const auto& model = trainer.model();
  const auto all = parameter_count(*model), trains = trainable_parameter_count(*model);
  if (config.uses_lora()) {  // appendix E's counts: the model, frozen, then its LoRA
    fmt::print("Total trainable parameters before: {}\nTotal trainable parameters after: 0\nTotal trainable LoRA "
               "parameters: {}\n",
               thousands(all - trains), thousands(trains));
  }
  fmt::print("Model: {} parameters, {} trainable ({}); {} layers, emb_dim {}, context {}\n", thousands(all),
             thousands(trains),
             config.uses_lora()
                 ? fmt::format("LoRA of rank {} and alpha {} on every Linear", config.lora_rank, config.lora_alpha)
                 : trainable,
             model->config.n_layers, model->config.emb_dim, model->config.context_length);
}

void save_finetuned_state_dict(const cxxopts::ParseResult& args, const Trainer& trainer, const std::string& label) {
  if (args.count("save-state-dict") == 0) return;
  const auto path = args["save-state-dict"].as<std::string>();
  save_tensors(path, merged_state_dict(*trainer.model()));
  fmt::print("{} {}{}\n", label, path, trainer.config().uses_lora() ? " (the LoRA merged into the Linear weights)" : "");
}

void add_training_output_flags(cxxopts::Options& options) {
  options.add_options("Output")("no-plot", "Skip the plots")(
      "progress", "Live progress line on stderr: auto (when a terminal), always or never",
      cxxopts::value<std::string>()->default_value("auto"), "WHEN");
}

void check_training_output_flags(const cxxopts::ParseResult& args) { cli::progress_flag(args); }

bool progress_wanted(const cxxopts::ParseResult& args, const Trainer& trainer) {
  return cli::progress_flag(args) && trainer.is_main();
}

TrainHooks lesson_hooks(ProgressLine& progress, const Trainer& trainer) {
  TrainHooks hooks;
  const int64_t num_epochs = trainer.config().num_epochs;
  const char* unit = trainer.config().classifies() ? "ex" : "tok";
  hooks.on_step = [&progress, num_epochs, unit](const StepRecord& s) {
    progress.update({s.step, s.total_steps, s.epoch, num_epochs, s.loss, s.tokens_per_second, s.seconds_left, unit});
  };
  hooks.on_eval = [&progress](const EvalRecord& r) {
    progress.clear();
    fmt::print("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}\n", r.epoch, r.step, r.train_loss, r.val_loss);
    std::fflush(stdout);
  };
  hooks.should_stop = [] { return StopOnSignal::requested(); };
  return hooks;
}

Stopped stopped_run(const Trainer& trainer) {
  const int64_t step = trainer.progress().step;
  const int signal = StopOnSignal::signal_number();
  if (signal == 0) {  // a data-parallel run that another rank's signal stopped
    return Stopped(fmt::format("stopped after step {} with the other ranks", step), 128 + SIGTERM);
  }
  const auto& out_dir = trainer.config().out_dir;
  const auto next = out_dir.empty() ? std::string("nothing saved (out_dir is empty)")
                                    : fmt::format("continue with --resume {}", trainer.checkpoint_path().string());
  return Stopped(fmt::format("stopped by {} after step {}; {}", StopOnSignal::signal_name(), step,
                             next),
                 128 + signal);
}

void draw_plot(const cxxopts::ParseResult& args, const std::string& script, const std::vector<std::string>& inputs,
               const std::string& out) {
  if (args.count("no-plot") != 0) return;
  std::vector<std::string> command = {python3(), script_file(script).string()};
  command.insert(command.end(), inputs.begin(), inputs.end());
  command.push_back(out);
  if (run_process(command) == 0) {
    fmt::print("Plot: {}\n", out);
  } else {
    fmt::print("Plot: not drawn (scripts/{} needs python3 with matplotlib)\n", script);
  }
}

}  // namespace llm
