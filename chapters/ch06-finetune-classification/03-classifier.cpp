// Lessons 6.4-6.5: the pretrained GPT (GPT-2 124M when scripts/download-gpt2.sh has
// fetched it, else a seeded random init, said so), its text continuations, then the
// classifier: every parameter frozen, out_head replaced by Linear(emb_dim, 2), the
// last transformer block and final_norm trainable again, and the class of a text read
// from its last token's logits.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/classifier.h"
#include "llm/model/generate.h"
#include "llm/model/gpt_weights.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/show.h"

namespace {

// The lesson's weights: --load-state-dict (model_from_flags loaded them), else GPT-2
// 124M from models/ for the default config, else none: the seed's random weights.
// Returns the file, or "" for none.
std::string load_weights(const cxxopts::ParseResult& args, llm::GPTModel& model) {
  if (args.count("load-state-dict") != 0) return args["load-state-dict"].as<std::string>();
  if (args.count("config") == 0) {
    if (const auto gpt2 = llm::downloaded_gpt2("124M")) {
      llm::load_gpt_weights(*model, llm::load_tensors(*gpt2), gpt2->string());
      return gpt2->string();
    }
  }
  return "";
}

// 6.4: the pretrained model continues two texts, and cannot yet classify the second.
std::pair<torch::Tensor, torch::Tensor> continuations(const cxxopts::ParseResult& args, llm::GPTModel& model,
                                                      const llm::BpeTokenizer& tokenizer) {
  const auto continue_text = [&](const std::string& text, int64_t new_tokens) {
    const auto ids = llm::text_to_token_ids(tokenizer, text).to(model->device());
    llm::require_context_length(args, model->config.context_length, ids.size(1), fmt::format("'{}'", text));
    const auto out = llm::generate_text_simple(*model, ids, new_tokens, model->config.context_length).cpu();
    fmt::print("{}\n\n", llm::token_ids_to_text(tokenizer, out));
    return out;
  };
  auto text_1 = continue_text("Every effort moves you", 15);
  auto text_2 = continue_text("Is the following text 'spam'? Answer with 'yes' or 'no': 'You are a winner you "
                              "have been specially selected to receive $1000 cash or a $2000 award.'",
                              23);
  return {std::move(text_1), std::move(text_2)};
}

// 6.5: the classifier's outputs for --text, its last token's, and the class label; returns
// the inputs and the outputs.
std::pair<torch::Tensor, torch::Tensor> classify_text(const cxxopts::ParseResult& args, llm::GPTModel& model,
                                                      const llm::BpeTokenizer& tokenizer) {
  const auto text = args["text"].as<std::string>();
  const auto inputs = llm::text_to_token_ids(tokenizer, text);  // [1, n]
  llm::require_context_length(args, model->config.context_length, inputs.size(1), "--text");
  fmt::print("Inputs: {}\nInputs dimensions: {}\n", llm::show(inputs), llm::torch_size(inputs));
  torch::Tensor outputs;
  {
    torch::NoGradGuard no_grad;
    outputs = model->forward(inputs.to(model->device())).cpu();  // [1, n, num_classes]
  }
  fmt::print("Outputs:\n {}\nOutputs dimensions: {}\n", llm::show(outputs), llm::torch_size(outputs));
  const auto last = outputs.select(1, -1);  // [1, num_classes]: the lesson's outputs[:, -1, :]
  fmt::print("Last output token: {}\n", llm::show(last));
  fmt::print("Class label: {}\n", torch::softmax(last, -1).argmax().item<int64_t>());
  fmt::print("Class label: {}\n", last.argmax().item<int64_t>());
  return {inputs, outputs};
}

}  // namespace

int main(int argc, char** argv) {
  auto options =
      llm::cli::options("ch06-03-classifier", "Lessons 6.4-6.5: a pretrained GPT given a classification head");
  llm::add_model_flags(options, "gpt2-124m.json");
  options.add_options("Classifier")("num-classes", "Classes of the new output head",
                                    cxxopts::value<int64_t>()->default_value("2"), "N")(
      "trainable", "What trains besides the head: last-block (the lesson), head (nothing more) or all",
      cxxopts::value<std::string>()->default_value("last-block"), "NAME")(
      "text", "The text to classify", cxxopts::value<std::string>()->default_value("Do you have time"), "TEXT");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto num_classes = llm::cli::positive_flag(args, "num-classes");
    if (num_classes < 2) {
      throw llm::cli::BadFlagValue(fmt::format("--num-classes must be at least 2, got {}", num_classes));
    }
    const auto trainable = llm::cli::choice_flag(args, "trainable", {"last-block", "head", "all"});
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    auto model = llm::gpt_model_from_flags(args);  // the seed's weights, or --load-state-dict's
    const auto weights = load_weights(args, model);
    model->eval();
    if (weights.empty()) {
      fmt::print("Weights: none: an untrained GPT, random weights of --seed {} (scripts/download-gpt2.sh 124M "
                 "fetches the lesson's)\n",
                 llm::cli::seed(args));
    } else {
      fmt::print("Weights: '{}'\n", weights);
    }

    const auto [text_1, text_2] = continuations(args, model, tokenizer);

    // 6.5: freeze, a new head after torch.manual_seed(123), unfreeze the last block.
    const auto all = llm::parameter_count(*model);
    torch::manual_seed(llm::cli::seed(args));
    llm::make_classifier(*model, num_classes, trainable);
    fmt::print("Parameters: {}; trainable: {} (--trainable {}: the head{})\n", llm::thousands(all),
               llm::thousands(llm::trainable_parameter_count(*model)), trainable,
               trainable == "last-block" ? ", the last transformer block and final_norm"
               : trainable == "all"      ? " and everything else"
                                         : " alone");

    const auto [inputs, outputs] = classify_text(args, model, tokenizer);
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"config", llm::string_to_tensor(llm::to_json(model->config).dump())},
                         {"weights", llm::string_to_tensor(weights)},
                         {"continuation_1", text_1},
                         {"continuation_2", text_2},
                         {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"num_classes", torch::tensor(num_classes)},
                         {"trainable", llm::string_to_tensor(trainable)},
                         {"inputs", inputs},
                         {"trainable_parameters", torch::tensor(llm::trainable_parameter_count(*model))},
                         {"classifier_outputs", outputs}});
    }
  });
}
