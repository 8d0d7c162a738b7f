// Lesson 4.7: greedy text generation with the untrained GPT of 4.6 (seed 123): the ids
// and the text. With --load-state-dict, the same with trained weights.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/model/generate.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-07-generate", "Greedy generation from a prompt");
  llm::add_model_flags(options);
  options.add_options()("prompt", "Text to continue", cxxopts::value<std::string>()->default_value("Hello, I am"),
      "TEXT")(
      "max-new-tokens", "Tokens to generate", cxxopts::value<int64_t>()->default_value("6"), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto prompt = args["prompt"].as<std::string>();
    if (prompt.empty()) throw llm::cli::BadFlagValue("--prompt is empty; expected some text to continue");
    const int64_t max_new_tokens = args["max-new-tokens"].as<int64_t>();
    if (max_new_tokens < 0) throw llm::cli::BadFlagValue(fmt::format("--max-new-tokens must be >= 0, got {}", max_new_tokens));
    auto model = llm::gpt_model_from_flags(args);
    if (args.count("load-state-dict") == 0) {
      fmt::print("(untrained: random weights of --seed {}; --load-state-dict FILE loads trained ones)\n",
                 llm::cli::seed(args));
    }
    auto encoded = llm::text_to_token_ids(tokenizer, prompt);  // [1, n]
    fmt::print("encoded: {}\n", llm::show_ids(encoded));
    fmt::print("encoded_tensor.shape: {}\n", llm::torch_size(encoded));
    const int64_t context = model->config.context_length;
    if (encoded.size(1) > context) {
      fmt::print("The prompt has {} tokens; only its last {} (context_length) are used.\n", encoded.size(1), context);
      encoded = encoded.slice(1, encoded.size(1) - context);
    }
    model->eval();  // disable dropout
    const auto out = llm::generate_text_simple(*model, encoded, max_new_tokens, context);  // [1, n + new]
    fmt::print("Output: {}\nOutput length: {}\n", llm::show(out), out.size(1));
    fmt::print("{}\n", llm::token_ids_to_text(tokenizer, out));
    llm::save_weights_flags(args, *model);
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("generate", llm::cli::seed(args), model->config);
      archive.insert(archive.end(), {{"prompt", encoded}, {"generated", out}});
      const auto prints = llm::fingerprints(*model);
      archive.insert(archive.end(), prints.begin(), prints.end());
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
