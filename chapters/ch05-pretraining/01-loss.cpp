// Lesson 5.1: how the loss scores a GPT's next-token guesses (two example sentences,
// step by step), perplexity, and the untrained model's loss on the-verdict. Exercise 5.5
// is the same with GPT-2's weights: --config configs/gpt2-124m.json --load-state-dict
// FILE --max-length 256.
#include <fmt/format.h>

#include <string>
#include <utility>

#include "llm/model/generate.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/train/loss.h"
#include "llm/train/pretrain_task.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"
#include "text_losses.h"

namespace {

// What --save-outputs records of the lesson's example batch.
struct ExampleLoss {
  torch::Tensor inputs, targets, logits, loss;
};

// 5.1.2: "every effort moves" -> " effort moves you", "I really like" -> " really like
// chocolate": the probabilities of the targets, then the loss by hand and by
// cross_entropy, and the perplexity.
ExampleLoss example_loss(const cxxopts::ParseResult& args, llm::LanguageModelImpl& model, const llm::BpeTokenizer& tokenizer,
                         torch::Device device) {
  ExampleLoss example;
  example.inputs = torch::tensor({16833, 3626, 6100, 40, 1107, 588}, torch::kLong).view({2, 3}).to(device);
  example.targets = torch::tensor({3626, 6100, 345, 1107, 588, 11311}, torch::kLong).view({2, 3}).to(device);
  const auto& targets = example.targets;
  llm::require_context_length(args, model.shape().context_length, example.inputs.size(1), "the lesson's inputs");
  example.logits = model.forward(example.inputs);     // [2, 3, vocab]
  const auto probas = torch::softmax(example.logits, -1);  // [2, 3, vocab]
  fmt::print("{}\n", llm::torch_size(probas));
  const auto token_ids = probas.argmax(-1, /*keepdim=*/true);  // [2, 3, 1]
  fmt::print("Token IDs:\n {}\n", llm::show(token_ids));
  fmt::print("Targets batch 1: {}\nOutputs batch 1: {}\n", llm::token_ids_to_text(tokenizer, targets[0]),
             llm::token_ids_to_text(tokenizer, token_ids[0].flatten()));

  // The probability each row gives its target token, then the loss by hand.
  const auto positions = torch::arange(3, device);
  const auto target_probas_1 = probas.index({0, positions, targets[0]});  // [3]
  const auto target_probas_2 = probas.index({1, positions, targets[1]});  // [3]
  fmt::print("Text 1: {}\nText 2: {}\n", llm::show(target_probas_1), llm::show(target_probas_2));
  const auto log_probas = torch::log(torch::cat({target_probas_1, target_probas_2}));  // [6]
  fmt::print("{}\n", llm::show(log_probas));
  const auto avg_log_probas = log_probas.mean();
  fmt::print("{}\n{}\n", llm::show(avg_log_probas), llm::show(avg_log_probas * -1));

  fmt::print("Logits shape: {}\nTargets shape: {}\n", llm::torch_size(example.logits), llm::torch_size(targets));
  fmt::print("Flattened logits: {}\nFlattened targets: {}\n", llm::torch_size(example.logits.flatten(0, 1)),
             llm::torch_size(targets.flatten()));
  example.loss = llm::token_cross_entropy(example.logits, targets);
  fmt::print("{}\n{}\n", llm::show(example.loss), llm::show(torch::exp(example.loss)));  // the loss and the perplexity
  return example;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-01-loss", "Cross-entropy loss and perplexity of a GPT (untrained unless weights are given)");
  llm::add_trained_model_flags(options, "gpt2-small-256.json");
  options.add_options()("data", "Text whose training and validation loss are computed",
                        cxxopts::value<std::string>()->default_value("the-verdict.txt"), "FILE")(
      "max-length", "Tokens per window of the loaders (0: the model's context length; exercise 5.5: 256)",
      cxxopts::value<int64_t>()->default_value("0"), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    auto trained = llm::trained_model_from_flags(args);  // untrained unless given: the seed's random weights
    auto& model = trained.model;
    const auto& tokenizer = trained.tokenizer;
    const int64_t max_length = args["max-length"].as<int64_t>();
    const int64_t context_length = model->shape().context_length;
    if (max_length < 0 || max_length > context_length) {
      throw llm::cli::BadFlagValue(fmt::format("--max-length must be in 0..{} (the context length), got {}",
                                               context_length, max_length));
    }
    model->eval();  // disable dropout during inference
    fmt::print("Weights: {}\n", llm::model_source(args));

    // 5.1.1: what the untrained model makes of "Every effort moves you".
    const auto generated = llm::generate_text_simple(
        *model, llm::text_to_token_ids(tokenizer, "Every effort moves you").to(device), 10, context_length);
    fmt::print("Output text:\n {}\n", llm::token_ids_to_text(tokenizer, generated));

    torch::NoGradGuard no_grad;
    const auto example = example_loss(args, *model, tokenizer, device);
    const auto data = args["data"].as<std::string>();
    llm::TrainConfig run;  // the lesson's split and batch size
    run.data = data;
    const auto [train_loss, val_loss] =
        lesson::print_text_losses(run, *model, tokenizer, max_length > 0 ? max_length : context_length, device);

    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("loss", llm::cli::seed(args), *model);
      archive.insert(archive.end(), {{"inputs", example.inputs},
                                     {"targets", example.targets},
                                     {"logits", example.logits},
                                     {"loss", example.loss},
                                     {"data", llm::string_to_tensor(data)},
                                     {"train_loss", torch::tensor(train_loss, torch::kDouble)},
                                     {"val_loss", torch::tensor(val_loss, torch::kDouble)},
                                     {"max_length", torch::tensor(max_length)}});
      if (args.count("checkpoint") + args.count("load-state-dict") != 0) llm::record_weights(archive, *model);
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
    llm::save_weights_flags(args, *model);
  });
}
