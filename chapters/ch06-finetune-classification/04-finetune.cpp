// Lessons 6.6-6.7: finetuning the classifier. The accuracies and losses before
// training, then train_classifier_simple's lines ("Ep 1 (Step 000000): Train loss
// 2.153, Val loss 2.392", "Training accuracy: 70.00% | Validation accuracy: 72.50%"),
// the final accuracies on every split, and the loss and accuracy plots. The trainer is
// chapter 5's: checkpoints, --resume, Ctrl-C, metrics and the progress line work here
// too. Appendix E is the same run with LoRA: --train-config train-classify-lora.json
// (or --lora-rank 16 --lora-alpha 16 --lr 8e-4) freezes the classifier, gives every
// Linear a LoRA, prints the appendix's parameter counts and trains the LoRA alone.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/io/state_dict.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/show.h"

namespace {

void print_run(const llm::Trainer& trainer, const llm::TrainingRun& run) {
  const auto& config = trainer.config();
  const auto& data = trainer.data();
  llm::print_finetuned_model(trainer, run, "124M", "--trainable " + config.trainable);
  fmt::print("Data: '{}': {} training, {} validation and {} test texts, each padded to {} tokens\n", config.data,
             data.train->size(), data.val->size(), data.test->size(), data.max_length);
  fmt::print("Run: {} epochs of {} steps, batch {}, lr {}, weight decay {}, seed {}\n", config.num_epochs,
             trainer.steps_per_epoch(), config.batch_size, config.lr, config.weight_decay, config.seed);
  if (trainer.progress().step > 0) {
    fmt::print("Resuming at step {} ({} examples seen)\n", trainer.progress().step, trainer.progress().tokens_seen);
  }
}

std::string percent(double share) { return fmt::format("{:.2f}%", share * 100); }

// Lesson 6.6: before training, the accuracy on 10 batches of each split (after
// torch.manual_seed(123)) and the loss on 5; returned as [accuracies..., losses...]
// for --save-outputs.
torch::Tensor before_training(llm::Trainer& trainer) {
  // One statement per pass, in the lesson's order: each pass draws from the generator.
  torch::manual_seed(static_cast<uint64_t>(trainer.config().seed));
  const auto accuracy = trainer.accuracy(10);
  const double test_accuracy = trainer.test_accuracy(10);
  fmt::print("Training accuracy: {}\nValidation accuracy: {}\nTest accuracy: {}\n", percent(accuracy.train_accuracy),
             percent(accuracy.val_accuracy), percent(test_accuracy));
  const auto loss = [&](const llm::DataLoader& loader) {
    return llm::calc_loss_loader(trainer.model(), loader, 5, trainer.batch_loss());
  };
  const double train_loss = loss(trainer.train_loader());
  const double val_loss = loss(trainer.val_loader());
  const double test_loss = loss(trainer.test_loader());
  fmt::print("Training loss: {:.3f}\nValidation loss: {:.3f}\nTest loss: {:.3f}\n", train_loss, val_loss, test_loss);
  torch::manual_seed(static_cast<uint64_t>(trainer.config().seed));  // the training cell's own seed
  return torch::tensor({accuracy.train_accuracy, accuracy.val_accuracy, test_accuracy, train_loss, val_loss, test_loss},
                       torch::kDouble);
}

// The accuracies per epoch as JSON lines, and both plots, beside the checkpoint.
void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer, const torch::Tensor& before) {
  const auto& config = trainer.config();
  llm::save_finetuned_state_dict(args, trainer, "State dict:");
  if (!config.out_dir.empty()) {
    const std::filesystem::path dir(config.out_dir);
    std::string lines;
    for (const auto& record : trainer.progress().accuracies) lines += llm::to_json_line(record);
    llm::write_file_atomic(dir / "accuracy.jsonl", lines);
    fmt::print("Checkpoint: {}\nMetrics: {} and {}\n", trainer.checkpoint_path().string(),
               trainer.metrics_path().string(), (dir / "accuracy.jsonl").string());
    const auto epochs = std::to_string(config.num_epochs), seen = std::to_string(trainer.progress().tokens_seen);
    if (!trainer.progress().history.empty()) {
      llm::draw_plot(args, "plot_classifier.py", {"loss", trainer.metrics_path().string(), epochs, seen},
                     (dir / "loss-plot.png").string());
    }
    if (!trainer.progress().accuracies.empty()) {
      llm::draw_plot(args, "plot_classifier.py", {"accuracy", (dir / "accuracy.jsonl").string(), epochs, seen},
                     (dir / "accuracy-plot.png").string());
    }
  }
  if (args.count("save-outputs") != 0) {
    auto archive = trainer.checkpoint();
    archive.emplace_back("kind", llm::string_to_tensor("classify"));
    if (before.defined()) archive.emplace_back("before_training", before);
    llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch06-04-finetune", "Lessons 6.6-6.7: finetune a GPT to classify spam");
  llm::add_run_flags(options, "train-classify.json");
  options.add_options("Output")("save-state-dict", "At the end, also write the classifier's weights (a PyTorch "
                                                   "state_dict: the lesson's review_classifier.pth; a LoRA "
                                                   "merged into them)",
                                cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    llm::check_training_output_flags(args);
    const auto run = llm::training_run_from_flags(args);  // every flag checked before the data loads
    llm::require_task(run, "classify");
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto trainer = llm::make_trainer(run, args, tokenizer);
    if (!trainer->is_main()) std::freopen("/dev/null", "w", stdout);
    print_run(*trainer, run);
    torch::Tensor before;  // a new run's lesson 6.6 numbers
    if (trainer->progress().step == 0) before = before_training(*trainer);

    const llm::StopOnSignal stop;
    llm::ProgressLine progress(llm::progress_wanted(args, *trainer));
    auto hooks = llm::lesson_hooks(progress, *trainer);
    hooks.on_accuracy = [&progress](const llm::AccuracyRecord& r) {
      progress.clear();
      fmt::print("Training accuracy: {} | Validation accuracy: {}\n", percent(r.train_accuracy),
                 percent(r.val_accuracy));
      std::fflush(stdout);
    };
    const auto started = std::chrono::steady_clock::now();
    const auto end = trainer->train(hooks);
    progress.clear();
    fmt::print("Training completed in {:.2f} minutes.\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60);
    if (end != llm::TrainEnd::kStopped) {  // lesson 6.7's accuracies on the whole of each split
      const auto accuracy = trainer->accuracy();
      const double test_accuracy = trainer->test_accuracy();
      fmt::print("Training accuracy: {}\nValidation accuracy: {}\nTest accuracy: {}\n",
                 percent(accuracy.train_accuracy), percent(accuracy.val_accuracy), percent(test_accuracy));
    }
    if (trainer->is_main()) write_outputs(args, *trainer, before);
    if (end == llm::TrainEnd::kStopped) throw llm::stopped_run(*trainer);
  });
}
