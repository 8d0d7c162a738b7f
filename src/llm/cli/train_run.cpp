#include "llm/cli/train_run.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/classifier.h"
#include "llm/util/files.h"
#include "llm/nn/linear.h"
#include "llm/text/tokenizer_json.h"
#include "llm/util/interrupt.h"
#include "llm/util/process.h"
#include "llm/util/show.h"
#include "llm/util/utf8.h"

namespace llm {

void print_finetuned_model(const Trainer& trainer, const TrainingRun& run, const std::string& gpt2_size,
                           const std::string& trainable) {
  const auto& config = trainer.config();
  if (run.initial_weights_path.empty() && run.checkpoint_path.empty()) {
    fmt::print("Weights: none: an untrained GPT, random weights of --seed {} (--load-state-dict takes GPT-2's: "
               "scripts/download-gpt2.sh {})\n",
               config.seed, gpt2_size);
  } else {
    fmt::print("Weights: '{}'\n", run.checkpoint_path.empty() ? run.initial_weights_path : run.checkpoint_path);
  }
  const auto& model = trainer.model();
  const auto all = parameter_count(*model), trains = trainable_parameter_count(*model);
  const auto shape = model->shape();
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
             shape.n_layers, shape.emb_dim, shape.context_length);
}

void save_finetuned_state_dict(const cxxopts::ParseResult& args, const Trainer& trainer, const std::string& label) {
  if (args.count("save-state-dict") == 0) return;
  const auto path = args["save-state-dict"].as<std::string>();
  const bool lora = has_lora(*trainer.model());
  save_tensors(path, merged_state_dict(*trainer.model()));
  fmt::print("{} {}{}\n", label, path, lora ? " (the LoRA merged into the Linear weights)" : "");
}

void add_training_output_flags(cxxopts::Options& options) {
  options.add_options("Output")("no-plot", "Skip the plots");
  cli::add_progress_flag(options, "Output");
}

namespace {

// The live progress line of each step, the stop requests of Ctrl-C and SIGTERM, the
// lesson's "Ep 1 (Step 000000): Train loss ..., Val loss ..." lines, and the task's
// samples or accuracies after each epoch.
TrainHooks lesson_hooks(ProgressLine& progress, const Trainer& trainer, const TrainingStep& step) {
  TrainHooks hooks;
  const int64_t num_epochs = trainer.config().num_epochs;
  const std::string unit(trainer.task().seen_unit());
  hooks.on_step = [&progress, num_epochs, unit](const StepRecord& s) {
    progress.update(
        {s.step, s.total_steps, s.epoch, num_epochs, s.loss, s.tokens_per_second, s.seconds_left, unit.c_str()});
  };
  hooks.on_eval = [&progress, &step](const EvalRecord& r) {
    progress.clear();
    if (step.eval_line) {
      fmt::print("{}\n", step.eval_line(r));
    } else {
      fmt::print("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}\n", r.epoch, r.step, r.train_loss,
                 r.val_loss);
    }
    std::fflush(stdout);
  };
  hooks.on_sample = [&progress](int64_t epoch, const std::string& sample) {
    progress.clear();
    fmt::print("Ep {} sample: {}\n", epoch, one_line(sample));
    std::fflush(stdout);
  };
  hooks.on_accuracy = [&progress](const AccuracyRecord& r) {
    progress.clear();
    fmt::print("Training accuracy: {} | Validation accuracy: {}\n", percent(r.train_accuracy),
               percent(r.val_accuracy));
    std::fflush(stdout);
  };
  hooks.should_stop = [] { return StopOnSignal::requested(); };
  return hooks;
}

// How a run that a signal stopped ends: its exit code, and how to continue it.
Stopped stopped_run(const Trainer& trainer) {
  const int64_t step = trainer.progress().step;
  const int signal = StopOnSignal::signal_number();
  if (signal == 0) {  // a data-parallel run that another rank's signal stopped
    return Stopped(fmt::format("stopped after step {} with the other ranks", step), 128 + SIGTERM);
  }
  const auto next = trainer.folder().writes()
                        ? fmt::format("continue with --resume {}", trainer.checkpoint_path().string())
                        : std::string("nothing saved (out_dir is empty)");
  return Stopped(fmt::format("stopped by {} after step {}; {}", StopOnSignal::signal_name(), step, next),
                 128 + signal);
}

// How a run that --max-steps ended before its last epoch says so, and how to go on.
void report_max_steps(const Trainer& trainer) {
  const auto& config = trainer.config();
  const int64_t all = trainer.steps_of_all_epochs();
  if (trainer.progress().step >= all) return;  // every epoch ran
  const auto next = trainer.folder().writes()
                        ? fmt::format("continue with --resume {} and a larger --max-steps (0: every epoch)",
                                      trainer.checkpoint_path().string())
                        : std::string("nothing saved (out_dir is empty)");
  fmt::print("Stopped at step {} of {} (--max-steps {}); {}\n", trainer.progress().step, all, config.max_steps, next);
}

// The run's tokenizer (config.tokenizer), whose ids must all be rows of the model's
// embedding. A model may have more rows than its tokenizer has tokens (Qwen3's 151,936
// for 151,669): the samples skip those ids, as Hugging Face's decode does.
BpeTokenizer run_tokenizer(const TrainingRun& run) {
  auto tokenizer = tokenizer_named(run.config.tokenizer);
  const int64_t vocab_size = run.model_config.shape().vocab_size;
  if (tokenizer.vocab_size() > vocab_size) {
    throw Error(fmt::format("the tokenizer '{}' has {} tokens, more than the model config's vocab_size {}: give a "
                            "config of this tokenizer's vocabulary",
                            run.config.tokenizer, tokenizer.vocab_size(), vocab_size));
  }
  return tokenizer;
}

// Rank 0's files: the step's, then the archive for compare.py.
void write_outputs(const cxxopts::ParseResult& args, const TrainingStep& step, Trainer& trainer,
                   const NamedTensors& before) {
  if (step.write_outputs) step.write_outputs(trainer);
  if (args.count("save-outputs") == 0) return;
  auto archive = trainer.checkpoint();
  archive.emplace_back("kind", string_to_tensor(step.kind));
  archive.insert(archive.end(), before.begin(), before.end());
  save_tensors(args["save-outputs"].as<std::string>(), archive);
}

}  // namespace

std::string percent(double share) { return fmt::format("{:.2f}%", share * 100); }

void run_training_step(const cxxopts::ParseResult& args, const TrainingStep& step) {
  const auto progress_mode = cli::progress_flag(args);
  auto run = training_run_from_flags(args, step.untrained_config);  // every flag checked before the data loads
  require_task(run, *step.task);
  if (step.check) step.check(run);
  const auto tokenizer = run_tokenizer(run);
  const auto trainer = make_trainer(run, step.task, tokenizer, run_device(args, run.distributed));
  // In a data-parallel run rank 0 speaks for all; the others print only their errors.
  if (!trainer->is_main()) std::freopen("/dev/null", "w", stdout);
  if (!run.initial_weights.empty() && step.task->continues_optimizer()) {
    fmt::print("Starting from: '{}' ({})\n", run.initial_weights_path,
               starts_with_optimizer_state(run, *step.task) ? "its weights and AdamW state"
                                                            : "its weights; AdamW starts fresh");
  }
  // The trainer has copied in what it takes from the files: their tensors, and the
  // pages they view, go now rather than at the end of the run.
  run.checkpoint.clear();
  run.initial_weights.clear();
  if (step.print_run) step.print_run(*trainer, run);
  NamedTensors before;  // a new run's lesson lines before training
  if (step.before_training && trainer->progress().step == 0) before = step.before_training(*trainer);

  const StopOnSignal stop;
  ProgressLine progress(trainer->is_main() ? progress_mode : ProgressMode::kOff);
  const auto hooks = lesson_hooks(progress, *trainer, step);
  TrainOutcome outcome;
  outcome.first_step = trainer->progress().step;
  const auto started = std::chrono::steady_clock::now();
  outcome.end = trainer->train(hooks);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  progress.clear();
  if (outcome.end == TrainEnd::kMaxSteps) report_max_steps(*trainer);
  if (step.after_training) step.after_training(*trainer, outcome);
  if (trainer->is_main()) write_outputs(args, step, *trainer, before);
  if (outcome.end == TrainEnd::kStopped) throw stopped_run(*trainer);
}

void print_run_plan(const Trainer& trainer) {
  const auto& config = trainer.config();
  const bool cut = trainer.total_steps() < trainer.steps_of_all_epochs();
  fmt::print("Run: {} epochs of {} steps{}, batch {}, lr {}, weight decay {}, seed {}\n", config.num_epochs,
             trainer.steps_per_epoch(), cut ? fmt::format(", stopping at step {} (--max-steps)", config.max_steps) : "",
             config.batch_size, config.lr, config.weight_decay, config.seed);
  if (const auto& group = trainer.group()) {
    fmt::print("Data-parallel: world size {} (c10d, Gloo); each rank reads its share of every epoch, batch {} "
               "per rank\n",
               group->world_size(), config.batch_size);
  }
  const auto& progress = trainer.progress();
  if (progress.step > 0) {
    const bool examples = trainer.task().seen_unit() == "ex";  // a classifier counts texts
    fmt::print("Resuming at step {} ({} {} seen)\n", progress.step, progress.tokens_seen, examples ? "examples" : "tokens");
  }
}

void report_run_folder(const cxxopts::ParseResult& args, const Trainer& trainer) {
  if (!trainer.folder().writes()) return;
  fmt::print("Checkpoint: {}\nMetrics: {}\n", trainer.checkpoint_path().string(), trainer.metrics_path().string());
  if (!trainer.progress().history.empty()) {
    draw_plot(args, "plot_losses.py", {trainer.metrics_path().string()},
              (trainer.folder().path() / "losses.png").string());
  }
}

void draw_plot(const cxxopts::ParseResult& args, const std::string& script, const std::vector<std::string>& inputs,
               const std::string& out) {
  if (args.count("no-plot") != 0) return;
  if (const auto why = run_script_into(script, inputs, out); why.empty()) {
    fmt::print("Plot: {}\n", out);
  } else {
    fmt::print("Plot: not drawn ({})\n", printable(why));
  }
}

}  // namespace llm
