// Lesson 7.3: batching the instruction data. InstructionDataset tokenizes each prompt
// with its response; custom_collate_fn pads a batch with <|endoftext|> (50256) to its
// longest text plus one, shifts the targets, and gives every padding target but the
// first the ignore_index -100, which cross_entropy leaves out (the lesson's toy
// example first, then its loss example). The loaders: batch 8, the training one
// shuffled with drop_last, after torch.manual_seed(123); the shape of every training
// batch, and the last batch's first inputs and targets.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/text/instruction_data.h"
#include "llm/train/loss.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

// -100 targets add nothing to the loss: loss_1 == loss_3. Returns the three losses.
torch::Tensor ignore_index_losses() {
  const auto logits = torch::tensor({{-1.0F, 1.0F}, {-0.5F, 1.5F}, {-0.5F, 1.5F}});
  const auto loss = [&](const torch::Tensor& l, std::vector<int64_t> t) {
    return torch::nn::functional::cross_entropy(l, torch::tensor(t, torch::kLong));
  };
  const auto loss_1 = loss(logits.slice(0, 0, 2), {0, 1});
  const auto loss_2 = loss(logits, {0, 1, 1});
  const auto loss_3 = loss(logits, {0, 1, llm::kIgnoreIndex});
  fmt::print("{}\n{}\n{}\nloss_1 == loss_3: {}\n", llm::show(loss_1), llm::show(loss_2), llm::show(loss_3),
             llm::show(loss_1 == loss_3));
  return torch::stack({loss_1, loss_2, loss_3});
}

// What the loaders show: every training batch's length, and the last one.
struct TrainBatches {
  std::vector<int64_t> lengths;
  llm::Batch last;
};

// The three loaders (torch.manual_seed(123) came before them: cli::run seeds with
// --seed), the shape of every training batch and the last batch's first example.
TrainBatches show_loaders(const llm::InstructionSplits& split, const llm::BpeTokenizer& tokenizer,
                          const llm::InstructionDataset::Options& collate, int64_t batch_size) {
  const auto train = std::make_shared<llm::InstructionDataset>(split.train, tokenizer, collate);
  const auto val = std::make_shared<llm::InstructionDataset>(split.validation, tokenizer, collate);
  const auto test = std::make_shared<llm::InstructionDataset>(split.test, tokenizer, collate);
  const llm::DataLoader train_loader(train, llm::DataLoaderOptions(batch_size).shuffle(true).drop_last(true));
  const llm::DataLoader val_loader(val, llm::DataLoaderOptions(batch_size).shuffle(false).drop_last(false));
  const llm::DataLoader test_loader(test, llm::DataLoaderOptions(batch_size).shuffle(false).drop_last(false));
  fmt::print("Train loader:\n");
  TrainBatches batches;
  for (const auto& batch : train_loader) {
    fmt::print("{} {}\n", llm::torch_size(batch.inputs), llm::torch_size(batch.targets));
    batches.lengths.push_back(batch.inputs.size(1));
    batches.last = batch;
  }
  fmt::print("{}\n{}\n", llm::show(batches.last.inputs[0]), llm::show(batches.last.targets[0]));
  fmt::print("{} training, {} validation and {} test batches\n", train_loader.size(), val_loader.size(),
             test_loader.size());
  return batches;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-02-batching", "Lesson 7.3: the instruction data in padded, masked batches",
                                   llm::cli::kSeedFlag | llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Instruction entries (a JSON list of instruction, input, output)",
                        cxxopts::value<std::string>()->default_value(llm::data_file("instruction-data.json")), "FILE")(
      "batch-size", "Entries per batch", cxxopts::value<int64_t>()->default_value("8"), "N")(
      "allowed-max-length", "Cut every batch to this many tokens (the lesson: 1024, GPT-2's context)",
      cxxopts::value<int64_t>()->default_value("1024"), "N")(
      "prompt-style", "The prompt template: alpaca (the lesson) or phi3 (exercise 7.1)",
      cxxopts::value<std::string>()->default_value("alpaca"), "NAME")(
      "mask-instructions", "Exercise 7.2: -100 for the prompt's targets too");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto batch_size = llm::cli::positive_flag(args, "batch-size");
    llm::InstructionDataset::Options collate;
    collate.allowed_max_length = llm::cli::positive_flag(args, "allowed-max-length");
    collate.mask_instructions = args["mask-instructions"].as<bool>();
    collate.style = llm::prompt_style_flag(args);
    const auto split = llm::split_instruction_data(llm::read_instruction_data(args["data"].as<std::string>()));
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    fmt::print("[{}]\n", fmt::join(tokenizer.encode("<|endoftext|>", {"<|endoftext|>"}), ", "));

    // The toy batch, through custom_collate_fn.
    const std::vector<std::vector<int64_t>> toy = {{0, 1, 2, 3, 4}, {5, 6}, {7, 8, 9}};
    const auto [toy_inputs, toy_targets] = llm::custom_collate(toy);
    fmt::print("{}\n{}\n", llm::show(toy_inputs), llm::show(toy_targets));

    const auto losses = ignore_index_losses();
    const auto batches = show_loaders(split, tokenizer, collate, batch_size);
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"data", llm::string_to_tensor(args["data"].as<std::string>())},
                         {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"batch_size", torch::tensor(batch_size)},
                         {"allowed_max_length", torch::tensor(collate.allowed_max_length)},
                         {"prompt_style", llm::string_to_tensor(std::string(llm::prompt_style_name(collate.style)))},
                         {"mask_instructions", torch::tensor(static_cast<int64_t>(collate.mask_instructions))},
                         {"toy_inputs", toy_inputs},
                         {"toy_targets", toy_targets},
                         {"losses", losses},
                         {"train_lengths", torch::tensor(batches.lengths, torch::kLong)},
                         {"last_inputs", batches.last.inputs},
                         {"last_targets", batches.last.targets}});
    }
  });
}
