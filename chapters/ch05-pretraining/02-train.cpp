// Lesson 5.2: pretraining a GPT on a text file, with the lesson's printed losses and
// samples, plus checkpoints, resuming, metrics, a plot and a live progress line.
#include <fmt/format.h>

#include <memory>

#include "llm/io/state_dict.h"
#include "llm/model/language_model.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/cli.h"
#include "llm/cli/train_run.h"
#include "llm/train/pretrain_task.h"
#include "llm/util/show.h"

namespace {

void print_run(const llm::Trainer& trainer, const llm::PretrainTask& task) {
  const auto& config = trainer.config();
  const auto model = trainer.model()->shape();
  const auto& data = task.split();
  fmt::print("Model: {} parameters; {} layers, {} heads, emb_dim {}, context {}\n",
             llm::thousands(llm::parameter_count(*trainer.model())),
             model.n_layers, model.n_heads, model.emb_dim, model.context_length);
  const auto windows = [&](int64_t samples, const llm::Dataset& dataset) {
    return samples > 0 ? fmt::format("{} random windows an epoch, of {} starts", samples, dataset.size())
                       : fmt::format("{} windows", dataset.size());
  };
  fmt::print("Data: {}: {} training tokens ({}), {}{} validation tokens ({})\n", config.data, task.train_tokens(),
             windows(data.train_samples, *data.train), config.val_data.empty() ? "" : config.val_data + ": ",
             task.val_tokens(), windows(data.val_samples, *data.val));
  llm::print_run_plan(trainer);
}

void after_training(llm::Trainer& trainer, const llm::TrainOutcome& outcome) {
  if (trainer.group()) {
    fmt::print("Ranks: {} processes; largest difference of a weight from rank 0's: {}\n",
               trainer.group()->world_size(), trainer.rank_divergence());
  }
  if (const auto& times = trainer.step_times(); trainer.progress().step > outcome.first_step) {  // steps were taken
    fmt::print("Data loading: {:.2f}% of the steps' time ({:.3f} s of {:.1f} s)\n", 100 * times.data_share(),
               times.data_seconds, times.steps_seconds);
  }
}

// Rank 0's files beside the checkpoint: the weights alone and the loss plot.
void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer) {
  if (args.count("save-state-dict") != 0) {
    llm::save_tensors(args["save-state-dict"].as<std::string>(), llm::state_dict(*trainer.model()));
  }
  if (args.count("save-safetensors") != 0) llm::save_hugging_face(args["save-safetensors"].as<std::string>(), *trainer.model());
  llm::report_run_folder(args, trainer);
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
    const auto task = std::make_shared<llm::PretrainTask>();
    llm::TrainingStep step;
    step.task = task;
    step.kind = "train";
    step.check = [&args](const llm::TrainingRun& run) {
      if (args.count("save-safetensors") == 0) return;
      if (const auto problem = run.model_config.hf_layout_problem(); !problem.empty()) {
        throw llm::cli::BadFlagValue("--save-safetensors: " + problem);
      }
    };
    step.print_run = [&task](const llm::Trainer& trainer, const llm::TrainingRun&) { print_run(trainer, *task); };
    step.after_training = after_training;
    step.write_outputs = [&args](llm::Trainer& trainer) { write_outputs(args, trainer); };
    llm::run_training_step(args, step);
  });
}
