// Lessons 6.6-6.7: finetuning the classifier. The accuracies and losses before
// training, then train_classifier_simple's lines ("Ep 1 (Step 000000): Train loss
// 2.153, Val loss 2.392", "Training accuracy: 70.00% | Validation accuracy: 72.50%"),
// the final accuracies on every split, and the loss and accuracy plots. The trainer is
// chapter 5's: checkpoints, --resume, Ctrl-C, metrics and the progress line work here
// too. Appendix E is the same run with LoRA: --train-config train-classify-lora.json
// (or --lora-rank 16 --lora-alpha 16 --lr 8e-4) freezes the classifier, gives every
// Linear a LoRA, prints the appendix's parameter counts and trains the LoRA alone.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/io/state_dict.h"
#include "llm/train/classify_task.h"
#include "llm/train/lesson_seeds.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

using llm::percent;

void print_run(const llm::Trainer& trainer, const llm::ClassifyTask& task, const llm::TrainingRun& run) {
  const auto& config = trainer.config();
  llm::print_finetuned_model(trainer, run, "124M", "--trainable " + config.trainable);
  fmt::print("Data: '{}': {} training, {} validation and {} test texts, each padded to {} tokens\n", config.data,
             task.split().train->size(), task.split().val->size(), task.test_loader().examples(), task.max_length());
  llm::print_run_plan(trainer);
}

// Lesson 6.6: before training, the accuracy on 10 batches of each split (after
// torch.manual_seed(123)) and the loss on 5; returned as [accuracies..., losses...]
// for --save-outputs.
llm::NamedTensors before_training(llm::Trainer& trainer, const llm::ClassifyTask& task) {
  const llm::LessonSeeds seeds(trainer.config().seed);
  seeds.before_checks();
  // One statement per pass, in the lesson's order: each pass draws from the generator.
  const auto accuracy = task.accuracy(trainer, 10);
  const double test_accuracy = task.test_accuracy(*trainer.model(), 10);
  fmt::print("Training accuracy: {}\nValidation accuracy: {}\nTest accuracy: {}\n", percent(accuracy.train_accuracy),
             percent(accuracy.val_accuracy), percent(test_accuracy));
  const auto loss = [&](const llm::DataLoader& loader) {
    return llm::calc_loss_loader(*trainer.model(), loader, 5, trainer.batch_loss());
  };
  const double train_loss = loss(trainer.train_loader());
  const double val_loss = loss(trainer.val_loader());
  const double test_loss = loss(task.test_loader());
  fmt::print("Training loss: {:.3f}\nValidation loss: {:.3f}\nTest loss: {:.3f}\n", train_loss, val_loss, test_loss);
  seeds.before_training();
  return {{"before_training", torch::tensor({accuracy.train_accuracy, accuracy.val_accuracy, test_accuracy,
                                             train_loss, val_loss, test_loss},
                                            torch::kDouble)}};
}

// Lesson 6.7's closing lines: the time, and the accuracies on the whole of each split.
void after_training(llm::Trainer& trainer, const llm::ClassifyTask& task, const llm::TrainOutcome& outcome) {
  fmt::print("Training completed in {:.2f} minutes.\n", outcome.seconds / 60);
  if (outcome.end == llm::TrainEnd::kStopped) return;
  const auto accuracy = task.accuracy(trainer);
  const double test_accuracy = task.test_accuracy(*trainer.model());
  fmt::print("Training accuracy: {}\nValidation accuracy: {}\nTest accuracy: {}\n", percent(accuracy.train_accuracy),
             percent(accuracy.val_accuracy), percent(test_accuracy));
}

// The accuracies per epoch as JSON lines, and both plots, beside the checkpoint.
void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer) {
  const auto& config = trainer.config();
  llm::save_finetuned_state_dict(args, trainer, "State dict:");
  if (!trainer.folder().writes()) return;
  const auto& dir = trainer.folder().path();
  std::string lines;
  for (const auto& record : trainer.progress().accuracies) lines += llm::to_json_line(record);
  llm::write_file_atomic(dir / "accuracy.jsonl", lines);
  fmt::print("Checkpoint: {}\nMetrics: {} and {}\n", trainer.checkpoint_path().string(),
             trainer.metrics_path().string(), (dir / "accuracy.jsonl").string());
  const auto epochs = std::to_string(config.num_epochs), seen = std::to_string(trainer.progress().tokens_seen);
  if (!trainer.progress().history.empty()) {
    llm::draw_plot(args, "plot_classifier.py", {"loss", trainer.metrics_path().string(), epochs, seen},
                   (dir / "losses.png").string());
  }
  if (!trainer.progress().accuracies.empty()) {
    llm::draw_plot(args, "plot_classifier.py", {"accuracy", (dir / "accuracy.jsonl").string(), epochs, seen},
                   (dir / "accuracies.png").string());
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch06-04-finetune", "Lessons 6.6-6.7: finetune a GPT to classify spam");
  llm::add_run_flags(options, "train-classify.json", llm::ClassifyTask::kName);
  options.add_options("Output")("save-state-dict", "At the end, also write the classifier's weights (a PyTorch "
                                                   "state_dict: the lesson's review_classifier.pth; a LoRA "
                                                   "merged into them)",
                                cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto task = std::make_shared<llm::ClassifyTask>();
    llm::TrainingStep step;
    step.task = task;
    step.kind = "classify";
    step.print_run = [&task](const llm::Trainer& trainer, const llm::TrainingRun& run) {
      print_run(trainer, *task, run);
    };
    step.before_training = [&task](llm::Trainer& trainer) { return before_training(trainer, *task); };
    step.after_training = [&task](llm::Trainer& trainer, const llm::TrainOutcome& outcome) {
      after_training(trainer, *task, outcome);
    };
    step.write_outputs = [&args](llm::Trainer& trainer) { write_outputs(args, trainer); };
    llm::run_training_step(args, step);
  });
}
