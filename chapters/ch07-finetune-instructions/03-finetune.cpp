// Lessons 7.5-7.6: finetuning the GPT on the instruction data. The pretrained model's
// response to the first validation prompt before training, the losses before
// training, then train_model_simple's lines ("Ep 1 (Step 000000): Train loss 2.637,
// Val loss 2.626" with GPT-2 355M) with the first validation prompt continued after
// each epoch, and the loss plot. The trainer is chapters 5 and 6's: checkpoints,
// --resume, Ctrl-C, metrics and the progress line work here too. Exercise 7.4 is the
// same run with LoRA (--lora-rank, --lora-alpha).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/model/generate.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/show.h"

namespace {

void print_run(const llm::Trainer& trainer, const llm::TrainingRun& run) {
  const auto& config = trainer.config();
  const auto& data = trainer.data();
  llm::print_finetuned_model(trainer, run, "355M", "every weight");
  const auto& entries = data.instructions;
  fmt::print("Data: '{}': {} training, {} validation and {} test entries; the {} prompt{}\n", config.data,
             entries.train.size(), entries.validation.size(), entries.test.size(), config.prompt_style,
             config.mask_instructions ? ", its tokens masked in the targets" : "");
  fmt::print("Run: {} epochs of {} steps, batch {}, lr {}, weight decay {}, seed {}\n", config.num_epochs,
             trainer.steps_per_epoch(), config.batch_size, config.lr, config.weight_decay, config.seed);
  if (trainer.progress().step > 0) {
    fmt::print("Resuming at step {} ({} tokens seen)\n", trainer.progress().step, trainer.progress().tokens_seen);
  }
}

// Lesson 7.5 before training: the model's response to the first validation prompt (35
// new tokens), then, after torch.manual_seed(123), the loss on 5 batches of each
// split; returned for --save-outputs.
torch::Tensor before_training(llm::Trainer& trainer, const llm::BpeTokenizer& tokenizer) {
  const auto& config = trainer.config();
  const auto style = llm::parse_prompt_style(config.prompt_style);
  const auto& first = trainer.data().instructions.validation.front();
  fmt::print("{}\n\n", llm::format_input(first, style));
  auto& model = trainer.model();
  model->eval();
  fmt::print("{}\n\n", llm::generate_response(model, tokenizer, first, style, 35));
  torch::manual_seed(static_cast<uint64_t>(config.seed));
  const auto loss = [&](const llm::DataLoader& loader) {
    return llm::calc_loss_loader(model, loader, 5, trainer.batch_loss());
  };
  const double train_loss = loss(trainer.train_loader());  // in this order: each pass draws from the generator
  const double val_loss = loss(trainer.val_loader());
  fmt::print("Training loss: {}\nValidation loss: {}\n", train_loss, val_loss);
  torch::manual_seed(static_cast<uint64_t>(config.seed));  // the training cell's own seed
  return torch::tensor({train_loss, val_loss}, torch::kDouble);
}

void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer, const torch::Tensor& before) {
  const auto& config = trainer.config();
  llm::save_finetuned_state_dict(args, trainer, "Model saved as");
  if (!config.out_dir.empty()) {
    fmt::print("Checkpoint: {}\nMetrics: {}\n", trainer.checkpoint_path().string(), trainer.metrics_path().string());
    if (!trainer.progress().history.empty()) {
      llm::draw_plot(args, "plot_losses.py", {trainer.metrics_path().string()},
                     (std::filesystem::path(config.out_dir) / "losses.png").string());
    }
  }
  if (args.count("save-outputs") != 0) {
    auto archive = trainer.checkpoint();
    archive.emplace_back("kind", llm::string_to_tensor("instruct"));
    if (before.defined()) archive.emplace_back("before_training", before);
    llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options =
      llm::cli::options("ch07-03-finetune", "Lessons 7.5-7.6: finetune a GPT to follow instructions");
  llm::add_run_flags(options, "train-instruct.json");
  options.add_options("Output")("save-state-dict", "At the end, also write the model's weights (a PyTorch "
                                                   "state_dict: the lesson's gpt2-medium355M-sft.pth; a LoRA "
                                                   "merged into them)",
                                cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    llm::check_training_output_flags(args);
    const auto run = llm::training_run_from_flags(args);  // every flag checked before the data loads
    llm::require_task(run, "instruct");
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto trainer = llm::make_trainer(run, args, tokenizer);
    if (!trainer->is_main()) std::freopen("/dev/null", "w", stdout);
    print_run(*trainer, run);
    torch::Tensor before;  // a new run's lesson 7.5 numbers
    if (trainer->progress().step == 0) before = before_training(*trainer, tokenizer);

    const llm::StopOnSignal stop;
    llm::ProgressLine progress(llm::progress_wanted(args, *trainer));
    auto hooks = llm::lesson_hooks(progress, *trainer);
    hooks.on_sample = [&progress](int64_t, const std::string& sample) {
      progress.clear();
      fmt::print("{}\n", llm::one_line(sample));
      std::fflush(stdout);
    };
    const auto started = std::chrono::steady_clock::now();
    const auto end = trainer->train(hooks);
    progress.clear();
    fmt::print("Training completed in {:.2f} minutes.\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60);
    if (trainer->is_main()) write_outputs(args, *trainer, before);
    if (end == llm::TrainEnd::kStopped) throw llm::stopped_run(*trainer);
  });
}
