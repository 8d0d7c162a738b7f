// Lessons 7.5-7.6: finetuning the GPT on the instruction data. The pretrained model's
// response to the first validation prompt before training, the losses before
// training, then train_model_simple's lines ("Ep 1 (Step 000000): Train loss 2.637,
// Val loss 2.626" with GPT-2 355M) with the first validation prompt continued after
// each epoch, and the loss plot. The trainer is chapters 5 and 6's: checkpoints,
// --resume, Ctrl-C, metrics and the progress line work here too. Exercise 7.4 is the
// same run with LoRA (--lora-rank, --lora-alpha).
#include <fmt/format.h>

#include <memory>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/model/generate.h"
#include "llm/train/instruct_task.h"
#include "llm/train/lesson_seeds.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

void print_run(const llm::Trainer& trainer, const llm::InstructTask& task, const llm::TrainingRun& run) {
  const auto& config = trainer.config();
  llm::print_finetuned_model(trainer, run, "355M", "every weight");
  const auto& entries = task.entries();
  fmt::print("Data: '{}': {} training, {} validation and {} test entries; the {} prompt{}\n", config.data,
             entries.train.size(), entries.validation.size(), entries.test.size(), config.prompt_style,
             config.mask_instructions ? ", its tokens masked in the targets" : "");
  llm::print_run_plan(trainer);
}

// Lesson 7.5 before training: the model's response to the first validation prompt (35
// new tokens), then, after torch.manual_seed(123), the loss on 5 batches of each
// split; returned for --save-outputs.
llm::NamedTensors before_training(llm::Trainer& trainer, const llm::InstructTask& task) {
  const auto& first = task.entries().validation.front();
  fmt::print("{}\n\n", llm::format_input(first, task.style()));
  auto& model = trainer.model();
  model->eval();
  fmt::print("{}\n\n", llm::generate_response(*model, trainer.tokenizer(), first, task.style(), 35));
  const llm::LessonSeeds seeds(trainer.config().seed);
  seeds.before_checks();
  const auto loss = [&](const llm::DataLoader& loader) {
    return llm::calc_loss_loader(*model, loader, 5, trainer.batch_loss());
  };
  const double train_loss = loss(trainer.train_loader());  // in this order: each pass draws from the generator
  const double val_loss = loss(trainer.val_loader());
  fmt::print("Training loss: {}\nValidation loss: {}\n", train_loss, val_loss);
  seeds.before_training();
  return {{"before_training", torch::tensor({train_loss, val_loss}, torch::kDouble)}};
}

void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer) {
  llm::save_finetuned_state_dict(args, trainer, "Model saved as");
  if (!trainer.folder().writes()) return;
  fmt::print("Checkpoint: {}\nMetrics: {}\n", trainer.checkpoint_path().string(), trainer.metrics_path().string());
  if (!trainer.progress().history.empty()) {
    llm::draw_plot(args, "plot_losses.py", {trainer.metrics_path().string()},
                   (trainer.folder().path() / "losses.png").string());
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options =
      llm::cli::options("ch07-03-finetune", "Lessons 7.5-7.6: finetune a GPT to follow instructions");
  llm::add_run_flags(options, "train-instruct.json", llm::InstructTask::kName);
  options.add_options("Output")("save-state-dict", "At the end, also write the model's weights (a PyTorch "
                                                   "state_dict: the lesson's gpt2-medium355M-sft.pth; a LoRA "
                                                   "merged into them)",
                                cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto task = std::make_shared<llm::InstructTask>();
    llm::TrainingStep step;
    step.task = task;
    step.kind = "instruct";
    step.print_run = [&task](const llm::Trainer& trainer, const llm::TrainingRun& run) {
      print_run(trainer, *task, run);
    };
    step.before_training = [&task](llm::Trainer& trainer) { return before_training(trainer, *task); };
    step.after_training = [](llm::Trainer&, const llm::TrainOutcome& outcome) {
      fmt::print("Training completed in {:.2f} minutes.\n", outcome.seconds / 60);
    };
    step.write_outputs = [&args](llm::Trainer& trainer) { write_outputs(args, trainer); };
    llm::run_training_step(args, step);
  });
}
