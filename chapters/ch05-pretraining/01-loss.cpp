// Lesson 5.1: how the loss scores a GPT's next-token guesses (two example sentences,
// step by step), perplexity, and the untrained model's loss on the-verdict.
#include <fmt/format.h>

#include "llm/model/generate.h"
#include "llm/cli/model_flags.h"
#include "llm/train/loss.h"
#include "llm/train/train_data.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-01-loss", "Cross-entropy loss and perplexity of an untrained GPT");
  llm::add_config_flag(options, "gpt2-small-256.json");
  options.add_options()("data", "Text whose training and validation loss are computed",
                        cxxopts::value<std::string>()->default_value("the-verdict.txt"), "FILE");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    llm::GPTModel model(llm::config_from_flags(args));
    model->to(device);
    model->eval();

    // "every effort moves" -> " effort moves you", "I really like" -> " really like chocolate"
    const auto inputs = torch::tensor({16833, 3626, 6100, 40, 1107, 588}, torch::kLong).view({2, 3}).to(device);
    const auto targets = torch::tensor({3626, 6100, 345, 1107, 588, 11311}, torch::kLong).view({2, 3}).to(device);
    torch::NoGradGuard no_grad;
    const auto logits = model->forward(inputs);             // [2, 3, vocab]
    const auto probas = torch::softmax(logits, -1);         // [2, 3, vocab]
    const auto token_ids = probas.argmax(-1, true);         // [2, 3, 1]
    fmt::print("Probabilities shape: {}\nToken ids:\n{}\n", llm::shape(probas), llm::show(token_ids));
    fmt::print("Targets batch 1: {}\nOutputs batch 1: {}\n", llm::token_ids_to_text(tokenizer, targets[0]),
               llm::token_ids_to_text(tokenizer, token_ids[0].flatten()));

    // The probability each row gives its target token, then the loss by hand.
    const auto positions = torch::arange(3, device);
    const auto target_probas_1 = probas.index({0, positions, targets[0]});  // [3]
    const auto target_probas_2 = probas.index({1, positions, targets[1]});  // [3]
    fmt::print("Text 1: {}\nText 2: {}\n", llm::show(target_probas_1), llm::show(target_probas_2));
    const auto log_probas = torch::log(torch::cat({target_probas_1, target_probas_2}));  // [6]
    const auto avg_log_probas = log_probas.mean();
    fmt::print("Log probabilities: {}\nAverage: {:.4f}\nNegative average (the loss): {:.4f}\n", llm::show(log_probas),
               avg_log_probas.item<double>(), -avg_log_probas.item<double>());

    const auto loss = llm::token_cross_entropy(logits, targets);
    fmt::print("Logits flattened: {}, targets flattened: {}\n", llm::shape(logits.flatten(0, 1)),
               llm::shape(targets.flatten()));
    fmt::print("cross_entropy: {:.4f}\nPerplexity: {:.1f} (vocabulary: {})\n", loss.item<double>(),
               llm::perplexity(loss.item<double>()), model->config.vocab_size);

    // The whole text, split 90/10, in non-overlapping windows of the context length.
    llm::TrainConfig run;
    run.data = args["data"].as<std::string>();
    const auto data = llm::load_train_val(run, model->config.context_length, tokenizer);
    const llm::DataLoader train_loader(data.train, llm::DataLoaderOptions(run.batch_size));
    const llm::DataLoader val_loader(data.val, llm::DataLoaderOptions(run.batch_size).shuffle(false).drop_last(false));
    fmt::print("Training tokens: {}, validation tokens: {}, all: {}\n", data.train_tokens, data.val_tokens,
               data.train_tokens + data.val_tokens);
    const double train_loss = llm::calc_loss_loader(model, train_loader);
    const double val_loss = llm::calc_loss_loader(model, val_loader);
    fmt::print("Training loss: {:.4f}\nValidation loss: {:.4f}\n", train_loss, val_loss);

    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("loss", llm::cli::seed(args), model->config);
      archive.insert(archive.end(), {{"inputs", inputs},
                                     {"targets", targets},
                                     {"logits", logits},
                                     {"loss", loss},
                                     {"data", llm::string_to_tensor(run.data)},
                                     {"train_loss", torch::tensor(train_loss, torch::kDouble)},
                                     {"val_loss", torch::tensor(val_loss, torch::kDouble)}});
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
