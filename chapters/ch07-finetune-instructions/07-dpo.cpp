// The ch07/04 bonus: preference tuning with DPO (dpo-from-scratch.ipynb, sections 4
// and 5). The instruction-finetuned GPT (chapter 7's --save-state-dict,
// gpt2-medium355M-sft.pth) is both the policy, which trains, and the reference, which
// stays frozen. Before training: the DPO loss and reward margins on 5 batches of each
// split (0.693... and 0.0, the policy being the reference) and the policy's responses
// to the first three validation entries; then train_model_dpo_simple's lines ("Ep 1
// (Step 000000): Train loss 0.692, Val loss 0.693, Train reward margins 0.014, Val
// reward margins 0.006" with the notebook's model), and the reference's and the
// policy's responses to the first three validation and test entries, and the two
// plots. The trainer is chapters 5-7's: checkpoints (the reference named by its file,
// not copied), --resume, Ctrl-C, metrics, LoRA. Without finetuned weights it tunes a
// small GPT of random weights (configs/train-dpo-quick.json) and says so.
#include <fmt/format.h>

#include <memory>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/model/generate.h"
#include "llm/train/dpo_task.h"
#include "llm/train/lesson_seeds.h"
#include "llm/util/show.h"

namespace {

constexpr int64_t kShownEntries = 3;  // the notebook's val_data[:3] and test_data[:3]

void print_run(const llm::Trainer& trainer, const llm::DpoTask& task, const llm::TrainingRun& run) {
  const auto& config = trainer.config();
  if (run.initial_weights_path.empty() && run.checkpoint_path.empty()) {
    fmt::print("No finetuned weights given (--load-state-dict): this run tunes a small GPT of random weights ({}), "
               "which shows the method, not its effect. The notebook's run: ch07-03-finetune --save-state-dict "
               "gpt2-medium355M-sft.pth, then ch07-07-dpo --load-state-dict gpt2-medium355M-sft.pth\n",
               config.model);
  }
  llm::print_finetuned_model(trainer, run, "355M", "every weight");
  const auto& source = task.reference_source();
  fmt::print("Reference: {}, frozen\n", source.empty() ? fmt::format("the policy's initial weights (seed {})", config.seed)
                                                         : fmt::format("'{}'", source));
  const auto& entries = task.entries();
  fmt::print("Data: '{}': {} training, {} validation and {} test entries{}\n", config.data, entries.train.size(),
             entries.validation.size(), entries.test.size(),
             config.mask_instructions ? "; the prompts masked, as the notebook's mask_prompt_tokens" : "");
  fmt::print("DPO: beta {}\n", config.beta);
  llm::print_run_plan(trainer);
}

// A float as Python's print() shows it: 0.0, where fmt writes 0.
std::string python_float(double value) {
  auto text = fmt::format("{}", value);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

// The reward margin of an evaluation's split: chosen minus rejected reward.
double margin(const llm::EvalRecord& record, const std::string& split) {
  double chosen = 0, rejected = 0;
  for (const auto& [name, value] : record.figures) {
    if (name == split + "_chosen_reward") chosen = value;
    if (name == split + "_rejected_reward") rejected = value;
  }
  return chosen - rejected;
}

std::string eval_line(const llm::EvalRecord& r) {
  return fmt::format("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}, Train reward margins {:.3f}, Val "
                     "reward margins {:.3f}",
                     r.epoch, r.step, r.train_loss, r.val_loss, margin(r, "train"), margin(r, "val"));
}

// The notebook's response cells: each entry's prompt, its correct output, and the
// responses of the models given (greedy, at most max_new_tokens, stopping at
// <|endoftext|>), under the labels given.
void print_responses(const std::vector<llm::PreferenceEntry>& entries, const llm::BpeTokenizer& tokenizer,
                     const std::vector<std::pair<std::string, llm::LanguageModelImpl*>>& models,
                     int64_t max_new_tokens) {
  for (size_t i = 0; i < std::min<size_t>(kShownEntries, entries.size()); ++i) {
    const auto& entry = entries[i].entry;
    fmt::print("{}\n\nCorrect response:\n>> {}\n", llm::format_input(entry), entry.output);
    for (const auto& [label, model] : models) {
      fmt::print("\n{} response:\n>> {}\n", label,
                 llm::generate_response(*model, tokenizer, entry, llm::PromptStyle::kAlpaca, max_new_tokens));
    }
    fmt::print("\n-------------------------------------\n\n");
  }
}

// Before training: torch.manual_seed(123) and evaluate_dpo_loss_loader on eval_iter
// batches of each split, then the policy's responses; returned for --save-outputs.
llm::NamedTensors before_training(llm::Trainer& trainer, const llm::DpoTask& task, int64_t max_new_tokens) {
  auto& model = trainer.model();
  const llm::LessonSeeds seeds(trainer.config().seed);
  seeds.before_checks();
  model->eval();
  const auto figures = [&task](llm::LanguageModelImpl& m, const llm::Batch& b) { return task.batch_figures(m, b); };
  const auto eval_iter = trainer.config().eval_iter;
  const auto train = llm::calc_figures_loader(*model, trainer.train_loader(), eval_iter, figures);
  const auto val = llm::calc_figures_loader(*model, trainer.val_loader(), eval_iter, figures);
  fmt::print("Training loss: {}\nValidation loss: {}\nTrain reward margin: {}\nVal reward margin: {}\n\n",
             python_float(train[0]), python_float(val[0]), python_float(train[1] - train[2]),
             python_float(val[1] - val[2]));
  print_responses(task.entries().validation, trainer.tokenizer(), {{"Model", model.get()}}, max_new_tokens);
  model->train();
  seeds.before_training();
  return {{"before_training", torch::tensor({train[0], val[0], train[1], train[2], val[1], val[2]}, torch::kDouble)}};
}

void after_training(llm::Trainer& trainer, const llm::DpoTask& task, int64_t max_new_tokens,
                    const llm::TrainOutcome& outcome) {
  fmt::print("Training completed in {:.2f} minutes.\n\n", outcome.seconds / 60);
  auto& policy = trainer.model();
  policy->eval();
  const std::vector<std::pair<std::string, llm::LanguageModelImpl*>> models = {{"Reference model", &task.reference()},
                                                                               {"Policy model", policy.get()}};
  print_responses(task.entries().validation, trainer.tokenizer(), models, max_new_tokens);
  print_responses(task.entries().test, trainer.tokenizer(), models, max_new_tokens);
}

void write_outputs(const cxxopts::ParseResult& args, llm::Trainer& trainer) {
  llm::save_finetuned_state_dict(args, trainer, "Policy saved as");
  llm::report_run_folder(args, trainer);
  if (!trainer.folder().writes() || trainer.progress().history.empty()) return;
  llm::draw_plot(args, "plot_losses.py", {"--reward-margins", trainer.metrics_path().string()},
                 (trainer.folder().path() / "reward-margins.png").string());
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-07-dpo", "The DPO bonus: tune the finetuned GPT towards preferred responses");
  llm::add_run_flags(options, "train-dpo.json", llm::DpoTask::kName);
  options.add_options("Output")(
      "response-tokens", "Tokens of each response before and after training (the notebook's 256; "
      "--max-new-tokens is the sample after each epoch)",
      cxxopts::value<int64_t>()->default_value("256"), "N")(
      "save-state-dict", "At the end, also write the policy's weights (a PyTorch state_dict; a LoRA merged into them)",
      cxxopts::value<std::string>(), "FILE");
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto max_new_tokens = llm::cli::positive_flag(args, "response-tokens");
    const auto task = std::make_shared<llm::DpoTask>();
    llm::TrainingStep step;
    step.task = task;
    step.kind = "dpo";
    step.untrained_config = "train-dpo-quick.json";
    step.print_run = [&task](const llm::Trainer& trainer, const llm::TrainingRun& run) {
      print_run(trainer, *task, run);
    };
    step.before_training = [&task, max_new_tokens](llm::Trainer& trainer) {
      return before_training(trainer, *task, max_new_tokens);
    };
    step.eval_line = eval_line;
    step.after_training = [&task, max_new_tokens](llm::Trainer& trainer, const llm::TrainOutcome& outcome) {
      after_training(trainer, *task, max_new_tokens, outcome);
    };
    step.write_outputs = [&args](llm::Trainer& trainer) { write_outputs(args, trainer); };
    llm::run_training_step(args, step);
  });
}
