// Text from a trained model: loads a training checkpoint, a state dict or a Hugging Face
// model folder and continues a prompt, greedily or by sampling with temperature and top-k.
#include <fmt/format.h>

#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/show.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("generate", "Continue a prompt with a trained model");
  llm::add_trained_model_flags(options);
  llm::add_sampling_flags(options);
  options.add_options("Sampling")("bos", "Put --model-dir's BOS token (config.json's bos_token_id) before the prompt, "
                                         "which is otherwise encoded without one, as the course's tokenizers do");
  options.add_options("Output")("ids", "Also print the token ids");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto prompt = args["prompt"].as<std::string>();
    if (prompt.empty()) throw llm::cli::BadFlagValue("--prompt is empty; expected some text to continue");
    const auto sampling = llm::sampling_from_flags(args);  // flags first, then the data
    if (args.count("bos") != 0 && args.count("model-dir") == 0) {
      throw llm::cli::BadFlagValue("--bos puts the BOS token of --model-dir's config.json first; give --model-dir");
    }
    auto trained = llm::trained_model_from_flags(args);
    auto& model = trained.model;
    const auto& tokenizer = trained.tokenizer;
    const auto& bos_id = trained.bos_id;
    if (args.count("bos") != 0 && !bos_id) {
      throw llm::Error(fmt::format("folder '{}': config.json has no bos_token_id", args["model-dir"].as<std::string>()));
    }
    model->eval();
    if (args.count("weights-dtype") != 0) {
      fmt::print("Decoding with {} weights: {:.1f} MB of layer weights read per token\n",
                 args["weights-dtype"].as<std::string>(), static_cast<double>(llm::linear_weight_bytes(*model)) / 1e6);
    }
    if (args.count("checkpoint") == 0 && args.count("load-state-dict") == 0 && args.count("model-dir") == 0) {
      fmt::print("Weights: {}\n", llm::model_source(args));
    }
    auto ids = llm::text_to_token_ids(tokenizer, prompt);
    if (args.count("bos") != 0) ids = torch::cat({torch::tensor({*bos_id}).view({1, 1}), ids}, 1);
    const auto out = llm::generate_from_flags(args, *model, ids, sampling);  // seeded right before
    fmt::print("{}\n", llm::token_ids_to_text(tokenizer, out));
    if (args.count("ids") != 0) fmt::print("Ids: {}\n", llm::show_ids(out));
    llm::save_weights_flags(args, *model);
  });
}
