// Lesson 5.2: pretraining a GPT on a text file, with the lesson's printed losses and
// samples, plus checkpoints, resuming, metrics, a plot and a live progress line.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>

#include "llm/io/state_dict.h"
#include "llm/model/gpt_weights.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/cli.h"
#include "llm/cli/train_run.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/process.h"
#include "llm/util/progress.h"
#include "llm/util/show.h"

namespace {

void print_run(const llm::Trainer& trainer) {
  const auto& config = trainer.config();
  const auto& model = trainer.model()->config;
  const auto& data = trainer.data();
  fmt::print("Model: {} parameters; {} layers, {} heads, emb_dim {}, context {}\n", llm::parameter_count(*trainer.model()),
             model.n_layers, model.n_heads, model.emb_dim, model.context_length);
  const auto windows = [&](int64_t samples, const llm::Dataset& dataset) {
    return samples > 0 ? fmt::format("{} random windows an epoch, of {} starts", samples, dataset.size())
                       : fmt::format("{} windows", dataset.size());
  };
  fmt::print("Data: {}: {} training tokens ({}), {}{} validation tokens ({})\n", config.data, data.train_tokens,
             windows(data.train_samples, *data.train), config.val_data.empty() ? "" : config.val_data + ": ",
             data.val_tokens, windows(data.val_samples, *data.val));
  fmt::print("Run: {} epochs of {} steps, batch {}, lr {}, weight decay {}, seed {}\n", config.num_epochs,
             trainer.steps_per_epoch(), config.batch_size, config.lr, config.weight_decay, config.seed);
  if (const auto& group = trainer.group()) {
    fmt::print("Data-parallel: world size {} (c10d, Gloo); each rank reads its share of every epoch, batch {} "
               "per rank\n",
               group->world_size(), config.batch_size);
  }
  const auto& progress = trainer.progress();
  if (progress.step > 0) fmt::print("Resuming at step {} ({} tokens seen)\n", progress.step, progress.tokens_seen);
}

// Rank 0's files beside the checkpoint: the weights alone, the loss plot and the
// archive for compare.py.
void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer) {
  const auto& config = trainer.config();
  if (args.count("save-state-dict") != 0) {
    llm::save_tensors(args["save-state-dict"].as<std::string>(), llm::state_dict(*trainer.model()));
  }
  if (args.count("save-safetensors") != 0) llm::save_hf_gpt2(args["save-safetensors"].as<std::string>(), trainer.model());
  if (!config.out_dir.empty()) {
    fmt::print("Checkpoint: {}\nMetrics: {}\n", trainer.checkpoint_path().string(), trainer.metrics_path().string());
    if (!trainer.progress().history.empty()) {
      llm::draw_plot(args, "plot_losses.py", {trainer.metrics_path().string()},
                     (std::filesystem::path(config.out_dir) / "losses.png").string());
    }
  }
  if (args.count("save-outputs") != 0) {
    auto archive = trainer.checkpoint();
    archive.emplace_back("kind", llm::string_to_tensor("train"));
    llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-02-train", "Pretrain a GPT on a text file, as lesson 5.2 does");
  llm::add_run_flags(options);
  options.add_options("Output")("save-state-dict", "At the end, also write the weights alone (a PyTorch state_dict)",
                                cxxopts::value<std::string>(), "FILE")(
      "save-safetensors", "At the end, also write the weights in Hugging Face's GPT-2 layout, with config.json beside them",
      cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    llm::check_training_output_flags(args);
    const auto run = llm::training_run_from_flags(args);  // every flag checked before the data loads
    llm::require_task(run, "pretrain");
    if (args.count("save-safetensors") != 0 && run.model_config.attention == "gqa") {
      throw llm::cli::BadFlagValue("--save-safetensors writes GPT-2's layout, which has no grouped-query attention");
    }
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto trainer = llm::make_trainer(run, args, tokenizer);
    // In a data-parallel run rank 0 speaks for all; the others print only their errors.
    if (!trainer->is_main()) std::freopen("/dev/null", "w", stdout);
    print_run(*trainer);

    const llm::StopOnSignal stop;
    llm::ProgressLine progress(llm::progress_wanted(args, *trainer));
    auto hooks = llm::lesson_hooks(progress, *trainer);
    hooks.on_sample = [&progress](int64_t, const std::string& sample) {
      progress.clear();
      fmt::print("{}\n", llm::one_line(sample));
      std::fflush(stdout);
    };
    const int64_t first_step = trainer->progress().step;
    const auto end = trainer->train(hooks);
    progress.clear();
    if (trainer->group()) {
      fmt::print("Ranks: {} processes; largest difference of a weight from rank 0's: {}\n",
                 trainer->group()->world_size(), trainer->rank_divergence());
    }
    if (const auto& times = trainer->step_times(); trainer->progress().step > first_step) {  // some steps were taken
      fmt::print("Data loading: {:.2f}% of the steps' time ({:.3f} s of {:.1f} s)\n", 100 * times.data_share(),
                 times.data_seconds, times.steps_seconds);
    }
    if (trainer->is_main()) write_outputs(args, *trainer);  // rank 0 writes the files
    if (end == llm::TrainEnd::kStopped) throw llm::stopped_run(*trainer);
  });
}
