// The bonus notebooks ch05/14_ch05_with_other_llms: chapter 5's pretraining on
// the-verdict with Qwen3 0.6B (ch05-qwen3.ipynb) or Llama 3.2 1B (ch05-llama32.ipynb)
// in place of GPT-2, with their own tokenizers. The run is chapter 5's (checkpoints,
// resume, metrics, plot); the notebooks' settings are configs/train-qwen3.json and
// train-llama32.json, their train_context_length of 256 the models' context length.
#include <fmt/format.h>

#include <mutex>
#include <string>
#include <vector>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/train_run.h"
#include "llm/model/generate.h"
#include "llm/reference/recording.h"
#include "llm/train/pretrain_task.h"
#include "llm/util/show.h"
#include "text_losses.h"

namespace {

struct Variant {
  std::string name, notebook, train_config;
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> kVariants = {{"qwen3", "ch05-qwen3.ipynb", "train-qwen3.json"},
                                                 {"llama32", "ch05-llama32.ipynb", "train-llama32.json"}};
  return kVariants;
}

// The variant --model names, read before the step's options are built so that its
// run config is the default; a bad value is left to the full parse, which reports it.
const Variant& picked(int argc, char** argv) {
  cxxopts::Options pre("ch05-14-other-llms");
  pre.allow_unrecognised_options();
  pre.add_options()("model", "", cxxopts::value<std::string>(), "NAME");
  try {
    const auto args = pre.parse(argc, argv);
    for (const auto& variant : variants()) {
      if (args.count("model") != 0 && args["model"].as<std::string>() == variant.name) return variant;
    }
  } catch (const cxxopts::exceptions::exception&) {
  }
  return variants().front();
}

// Leaves the global generator as it found it: the notebook computes its first losses
// before it seeds the model it trains, so they draw nothing the training sees.
class KeepRandomState {
 public:
  KeepRandomState() {
    const std::lock_guard<std::mutex> lock(generator_.mutex());
    state_ = generator_.get_state();
  }
  ~KeepRandomState() {
    const std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_state(state_);
  }
  KeepRandomState(const KeepRandomState&) = delete;
  KeepRandomState& operator=(const KeepRandomState&) = delete;

 private:
  at::Generator generator_ = at::detail::getDefaultCPUGenerator();
  torch::Tensor state_;
};

// The notebook's generate_text_simple cell: greedy, at the model's context length (the
// notebook's train_context_length).
torch::Tensor print_continuation(llm::Trainer& trainer, const std::string& prompt, int64_t max_new_tokens) {
  auto& model = *trainer.model();
  model.eval();
  const auto ids = llm::generate_text_simple(model, llm::text_to_token_ids(trainer.tokenizer(), prompt), max_new_tokens,
                                             model.shape().context_length);
  fmt::print("Output text:\n {}\n", llm::token_ids_to_text(trainer.tokenizer(), ids));
  return ids;
}

void print_run(const llm::Trainer& trainer, const Variant& variant) {
  const auto& config = trainer.config();
  fmt::print("Notebook: {}; model {} ({}), {} parameters; tokenizer {}\n", variant.notebook, trainer.model()->name(),
             config.model, llm::thousands(llm::parameter_count(*trainer.model())), config.tokenizer);
  llm::print_run_plan(trainer);
}

// 5.1.1 and 5.1.3: the untrained model's text and its losses on the-verdict.
llm::NamedTensors before_training(llm::Trainer& trainer) {
  const KeepRandomState keep;
  const torch::NoGradGuard no_grad;
  auto& model = *trainer.model();
  const auto generated = print_continuation(trainer, "Every effort moves you", 10);
  const auto [train_loss, val_loss] = lesson::print_text_losses(trainer.config(), model, trainer.tokenizer(),
                                                                model.shape().context_length, model.device());
  model.train();
  return {{"initial_generated", generated.to(torch::kCPU)},
          {"initial_train_loss", torch::tensor(train_loss, torch::kDouble)},
          {"initial_val_loss", torch::tensor(val_loss, torch::kDouble)}};
}

// 5.3: the trained model continues the notebook's two prompts.
void after_training(llm::Trainer& trainer, const llm::TrainOutcome&) {
  const torch::NoGradGuard no_grad;
  for (const char* prompt : {"Every effort moves you", "Painting"}) print_continuation(trainer, prompt, 25);
}

}  // namespace

int main(int argc, char** argv) {
  const auto& variant = picked(argc, argv);
  auto options = llm::cli::options("ch05-14-other-llms",
                                   "Pretrain Qwen3 or Llama 3.2 on the-verdict, as the course's ch05/14 notebooks do");
  options.add_options("Model")("model", "The notebook: qwen3 (ch05-qwen3.ipynb) or llama32 (ch05-llama32.ipynb)",
                               cxxopts::value<std::string>()->default_value(variant.name), "NAME");
  llm::add_run_flags(options, variant.train_config, llm::PretrainTask::kName);
  llm::add_training_output_flags(options);

  return llm::cli::run(options, argc, argv, [&variant](const cxxopts::ParseResult& args) {
    llm::cli::choice_flag(args, "model", {"qwen3", "llama32"});
    llm::TrainingStep step;
    step.task = std::make_shared<llm::PretrainTask>();
    step.kind = "other-llms";
    step.print_run = [&variant](const llm::Trainer& trainer, const llm::TrainingRun&) { print_run(trainer, variant); };
    step.before_training = before_training;
    step.after_training = after_training;
    step.write_outputs = [&args](llm::Trainer& trainer) { llm::report_run_folder(args, trainer); };
    llm::run_training_step(args, step);
  });
}
