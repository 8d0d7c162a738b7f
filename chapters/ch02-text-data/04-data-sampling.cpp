// Lesson 2.6: input-target pairs from a sliding window, batched by a data loader that
// draws from the generator exactly as PyTorch's DataLoader does.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

// The lesson's first loop: each prefix of a sample and the token that follows it, as
// ids and as text. The sample starts at token 50, past the title.
void next_word_pairs(const llm::BpeTokenizer& tokenizer, const std::vector<int64_t>& enc_text, int64_t context_size) {
  const std::vector<int64_t> enc_sample(enc_text.begin() + std::min<size_t>(50, enc_text.size()), enc_text.end());
  if (static_cast<int64_t>(enc_sample.size()) <= context_size) return;
  const auto slice = [&](int64_t from, int64_t to) {
    return std::vector<int64_t>(enc_sample.begin() + from, enc_sample.begin() + to);
  };
  fmt::print("x: [{}]\ny:      [{}]\n", fmt::join(slice(0, context_size), ", "),
             fmt::join(slice(1, context_size + 1), ", "));
  for (int64_t i = 1; i <= context_size; ++i) fmt::print("[{}] ----> {}\n", fmt::join(slice(0, i), ", "), enc_sample[i]);
  for (int64_t i = 1; i <= context_size; ++i) {
    fmt::print("{} ----> {}\n", tokenizer.decode(slice(0, i)), tokenizer.decode({enc_sample[i]}));
  }
}

// A batch as the lesson prints one: print(first_batch) shows [inputs, targets].
std::string show_batch(const llm::Batch& batch) {
  return fmt::format("[{}, {}]", llm::show(batch.inputs), llm::show(batch.targets));
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-04-data-sampling", "Sliding-window dataset and data loader",
                                   llm::cli::kSeedFlag | llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Text to sample from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "max-length", "Tokens per input", cxxopts::value<int64_t>()->default_value("4"), "N")(
      "stride", "Tokens between window starts", cxxopts::value<int64_t>()->default_value("1"), "N")(
      "batch-size", "Windows per batch", cxxopts::value<int64_t>()->default_value("1"), "N")(
      "shuffle", "Shuffle the windows (as DataLoader(shuffle=True))",
      cxxopts::value<bool>()->default_value("false"), "BOOL")(
      "drop-last", "Drop a last, smaller batch", cxxopts::value<bool>()->default_value("true"), "BOOL")(
      "num-batches", "Batches to show", cxxopts::value<int64_t>()->default_value("2"), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto max_length = llm::cli::positive_flag(args, "max-length"), stride = llm::cli::positive_flag(args, "stride"),
               batch_size = llm::cli::positive_flag(args, "batch-size"),
               wanted = llm::cli::positive_flag(args, "num-batches");
    const auto input = args["data"].as<std::string>();
    const bool shuffle = args["shuffle"].as<bool>(), drop_last = args["drop-last"].as<bool>();
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto enc_text = tokenizer.encode(llm::cli::read_input_text(input, 12), {"<|endoftext|>"});
    fmt::print("{}\n", enc_text.size());
    next_word_pairs(tokenizer, enc_text, max_length);

    const auto ids = torch::tensor(enc_text);
    llm::NamedTensors outputs = {{"input", llm::string_to_tensor(input)},
                                 {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                                 {"max_length", torch::tensor(max_length)},
                                 {"stride", torch::tensor(stride)},
                                 {"batch_size", torch::tensor(batch_size)},
                                 {"shuffle", torch::tensor(shuffle)},
                                 {"drop_last", torch::tensor(drop_last)}};
    const llm::DataLoader loader(std::make_shared<llm::SlidingWindowDataset>(ids, max_length, stride),
                                 llm::DataLoaderOptions(batch_size).shuffle(shuffle).drop_last(drop_last));
    int64_t shown = 0;
    for (const auto& batch : loader) {
      if (shown == wanted) break;
      fmt::print("{}\n", show_batch(batch));
      outputs.emplace_back(fmt::format("inputs_{}", shown), batch.inputs);
      outputs.emplace_back(fmt::format("targets_{}", shown), batch.targets);
      ++shown;
    }

    // Batch size 8 with a stride of max_length: no window overlaps the next.
    const llm::DataLoader wide(std::make_shared<llm::SlidingWindowDataset>(ids, max_length, max_length),
                               llm::DataLoaderOptions(8).shuffle(false).drop_last(drop_last));
    for (const auto& batch : wide) {  // the first batch, if the text has one
      fmt::print("Inputs:\n {}\n\nTargets:\n {}\n", llm::show(batch.inputs), llm::show(batch.targets));
      outputs.insert(outputs.end(), {{"wide_inputs", batch.inputs}, {"wide_targets", batch.targets}});
      break;
    }
    if (args.count("save-outputs") != 0) llm::save_tensors(args["save-outputs"].as<std::string>(), outputs);
  });
}
