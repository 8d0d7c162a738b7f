// Lesson 6.3: SpamDataset and the data loaders. Each text becomes GPT-2 token ids,
// padded with <|endoftext|> (50256) to the longest training text; the validation and
// test sets are cut or padded to that length too.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/classification_dataset.h"
#include "llm/text/data_loader.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch06-02-loaders", "Lesson 6.3: the spam datasets and their data loaders",
                                   llm::cli::kSeedFlag | llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "The folder of train.csv, validation.csv and test.csv (ch06-01-data)",
                        cxxopts::value<std::string>()->default_value(llm::data_file("spam")), "DIR")(
      "batch-size", "Examples per batch", cxxopts::value<int64_t>()->default_value("8"), "N")(
      "max-length", "Pad or cut every text to this many tokens (exercise 6.2: the context length, 1024) instead of "
                    "the longest training text",
      cxxopts::value<int64_t>(), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const std::filesystem::path dir = args["data"].as<std::string>();
    const auto batch_size = llm::cli::positive_flag(args, "batch-size");
    std::optional<int64_t> max_length;
    if (args.count("max-length") != 0) max_length = llm::cli::positive_flag(args, "max-length");
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    fmt::print("[{}]\n", fmt::join(tokenizer.encode("<|endoftext|>", {"<|endoftext|>"}), ", "));

    const auto split = [&](const char* name, std::optional<int64_t> length) {
      const auto path = dir / name;
      return std::make_shared<llm::ClassificationDataset>(llm::read_examples_csv(path), tokenizer, length,
                                                          fmt::format("'{}'", path.string()));
    };
    const auto train = split("train.csv", max_length);
    fmt::print("{}\n", train->max_length());
    const auto val = split("validation.csv", train->max_length()), test = split("test.csv", train->max_length());

    // torch.manual_seed(123) came before the loaders (cli::run seeds with --seed).
    const llm::DataLoader train_loader(train, llm::DataLoaderOptions(batch_size).shuffle(true).drop_last(true));
    const llm::DataLoader val_loader(val, llm::DataLoaderOptions(batch_size).shuffle(false).drop_last(false));
    const llm::DataLoader test_loader(test, llm::DataLoaderOptions(batch_size).shuffle(false).drop_last(false));

    llm::Batch first, last;
    for (const auto& batch : train_loader) {
      if (!first.inputs.defined()) first = batch;
      last = batch;
    }
    fmt::print("Train loader:\nInput batch dimensions: {}\nLabel batch dimensions {}\n", llm::torch_size(last.inputs),
               llm::torch_size(last.targets));
    fmt::print("{} training batches\n{} validation batches\n{} test batches\n", train_loader.size(), val_loader.size(),
               test_loader.size());
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"data_dir", llm::string_to_tensor(dir.string())},
                         {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"batch_size", torch::tensor(batch_size)},
                         {"max_length_flag", torch::tensor(max_length.value_or(0))},
                         {"max_length", torch::tensor(train->max_length())},
                         {"train_inputs", train->inputs()},
                         {"validation_inputs", val->inputs()},
                         {"test_inputs", test->inputs()},
                         {"first_batch_inputs", first.inputs},
                         {"first_batch_labels", first.targets},
                         {"last_batch_inputs", last.inputs},
                         {"last_batch_labels", last.targets},
                         {"batches", torch::tensor({train_loader.size(), val_loader.size(), test_loader.size()})}});
    }
  });
}
