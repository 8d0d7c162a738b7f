// Lesson 7.7: the finetuned model's responses. For the first three test entries, the
// prompt, the correct response and the model's; then a response for every test entry
// (greedy, at most 256 new tokens, stopping at <|endoftext|>), with a progress bar,
// written as the lesson writes instruction-data-with-response.json: each entry with a
// "model_response".
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/generate.h"
#include "llm/train/checkpoint.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/progress.h"
#include "llm/util/show.h"

namespace {

// The checkpoint's prompt style unless --prompt-style says otherwise.
llm::PromptStyle prompt_style(const cxxopts::ParseResult& args) {
  if (args.count("prompt-style") != 0) return llm::prompt_style_flag(args);
  if (args.count("checkpoint") == 0) return llm::PromptStyle::kAlpaca;
  const auto path = args["checkpoint"].as<std::string>();
  return llm::parse_prompt_style(llm::checkpoint_train_config(llm::load_checkpoint(path), path).prompt_style);
}

// A response for every test entry: the first three printed beside the correct ones,
// the rest under a progress bar. Ctrl-C stops it with nothing written to `out`.
void respond_to_all(std::vector<llm::InstructionEntry>& test, llm::LanguageModelImpl& model,
                    const llm::BpeTokenizer& tokenizer, llm::PromptStyle style, int64_t max_new_tokens,
                    llm::ProgressMode show_progress, const std::string& out) {
  const llm::StopOnSignal stop;
  const auto respond = [&](llm::InstructionEntry& entry) {
    entry.model_response = llm::generate_response(model, tokenizer, entry, style, max_new_tokens);
  };
  const auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < std::min<size_t>(3, test.size()); ++i) {
    respond(test[i]);
    fmt::print("{}\n\nCorrect response:\n>> {}\n\nModel response:\n>> {}\n-------------------------------------\n",
               llm::format_input(test[i], style), test[i].output, *test[i].model_response);
  }
  llm::ProgressLine bar(show_progress);
  for (size_t i = 3; i < test.size(); ++i) {
    if (llm::StopOnSignal::requested()) {
      bar.clear();
      throw llm::Error(fmt::format("stopped after {} of {} responses; nothing written to '{}'", i, test.size(), out));
    }
    respond(test[i]);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    bar.update(llm::format_count_progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(test.size()), seconds,
                                          "entries"),
               i + 1 == test.size());
  }
  bar.clear();
}

// compare.py replays a checkpoint's responses.
void save_outputs(const cxxopts::ParseResult& args, const std::vector<llm::InstructionEntry>& test,
                  llm::PromptStyle style, int64_t max_new_tokens) {
  std::string joined;
  for (size_t i = 0; i < test.size(); ++i) joined += (i > 0 ? std::string(1, '\0') : "") + *test[i].model_response;
  llm::save_tensors(
      args["save-outputs"].as<std::string>(),
      {{"data", llm::string_to_tensor(args["data"].as<std::string>())},
       {"checkpoint",
        llm::string_to_tensor(args.count("checkpoint") != 0 ? args["checkpoint"].as<std::string>() : "")},
       {"prompt_style", llm::string_to_tensor(std::string(llm::prompt_style_name(style)))},
       {"max_new_tokens", torch::tensor(max_new_tokens)},
       {"responses", llm::string_to_tensor(joined)}});
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-04-responses", "Lesson 7.7: the finetuned model's responses to the test set");
  llm::add_trained_model_flags(options, "gpt2-355m-finetune.json");
  llm::add_weights_dtype_flag(options);
  options.add_options()("data", "Instruction entries (a JSON list of instruction, input, output); the test set is "
                                "their 85%-95% part",
                        cxxopts::value<std::string>()->default_value(llm::data_file("instruction-data.json")), "FILE")(
      "prompt-style", "The prompt template: alpaca or phi3 (default: the checkpoint's, else alpaca)",
      cxxopts::value<std::string>(), "NAME")(
      "max-new-tokens", "Tokens generated at most per response", cxxopts::value<int64_t>()->default_value("256"), "N")(
      "out", "Where the entries with their responses go (JSON)",
      cxxopts::value<std::string>()->default_value("instruction-data-with-response.json"), "FILE");
  llm::cli::add_progress_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto max_new_tokens = llm::cli::positive_flag(args, "max-new-tokens");
    const auto show_progress = llm::cli::progress_flag(args);
    const auto out = args["out"].as<std::string>();
    const auto style = prompt_style(args);
    auto test = llm::split_instruction_data(llm::read_instruction_data(args["data"].as<std::string>())).test;
    if (test.empty()) throw llm::Error(fmt::format("'{}': no test entries", args["data"].as<std::string>()));
    auto trained = llm::trained_model_from_flags(args);
    auto& model = trained.model;
    const auto& tokenizer = trained.tokenizer;
    model->eval();
    fmt::print("Weights: {}\n", llm::model_source(args));

    respond_to_all(test, *model, tokenizer, style, max_new_tokens, show_progress, out);
    llm::write_file_atomic(out, llm::instruction_data_json(test));
    const auto& first = test.front();
    fmt::print("{{'instruction': {}, 'input': {}, 'output': {}, 'model_response': {}}}\n",
               llm::python_repr(first.instruction), llm::python_repr(first.input), llm::python_repr(first.output),
               llm::python_repr(*first.model_response));
    fmt::print("Responses: {} ({} entries)\n", out, test.size());
    if (args.count("save-outputs") != 0) save_outputs(args, test, style, max_new_tokens);
  });
}
