// Lesson 2.6: input-target pairs from a sliding window, batched by a data loader that
// draws from the generator exactly as PyTorch's DataLoader does.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"
#include "llm/util/show.h"


int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-04-data-sampling", "Sliding-window dataset and data loader");
  options.add_options()("input", "Text to sample from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "max-length", "Tokens per input", cxxopts::value<int64_t>()->default_value("4"))(
      "stride", "Tokens between window starts", cxxopts::value<int64_t>()->default_value("1"))(
      "batch-size", "Windows per batch", cxxopts::value<int64_t>()->default_value("1"))(
      "shuffle", "Shuffle the windows (as DataLoader(shuffle=True))",
      cxxopts::value<bool>()->default_value("false"))(
      "drop-last", "Drop a last, smaller batch", cxxopts::value<bool>()->default_value("true"))(
      "num-batches", "Batches to show", cxxopts::value<int64_t>()->default_value("2"));

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto ids = tokenizer.encode(llm::read_text_file(args["input"].as<std::string>()), {"<|endoftext|>"});
    auto dataset = std::make_shared<llm::SlidingWindowDataset>(torch::tensor(ids), args["max-length"].as<int64_t>(),
                                                               args["stride"].as<int64_t>());
    const llm::DataLoader loader(dataset, llm::DataLoaderOptions(args["batch-size"].as<int64_t>())
                                              .shuffle(args["shuffle"].as<bool>())
                                              .drop_last(args["drop-last"].as<bool>()));
    fmt::print("{} tokens -> {} windows -> {} batches\n\n", ids.size(), dataset->size(), loader.size());

    const auto [x, y] = dataset->get(0);
    fmt::print("The first window, token by token:\n");
    for (int64_t i = 0; i < x.size(0); ++i) {
      const auto context = x.slice(0, 0, i + 1);
      const auto context_ids = std::vector<int64_t>(context.data_ptr<int64_t>(), context.data_ptr<int64_t>() + i + 1);
      fmt::print("  {} ----> {}\n", tokenizer.decode(context_ids), tokenizer.decode({y[i].item<int64_t>()}));
    }
    fmt::print("\n");

    llm::NamedTensors outputs;
    int64_t shown = 0;
    const int64_t wanted = args["num-batches"].as<int64_t>();
    for (const auto& batch : loader) {
      if (shown == wanted) break;
      fmt::print("Batch {}\nInputs:\n{}\nTargets:\n{}\n\n", shown, llm::show(batch.inputs), llm::show(batch.targets));
      outputs.emplace_back(fmt::format("inputs_{}", shown), batch.inputs);
      outputs.emplace_back(fmt::format("targets_{}", shown), batch.targets);
      ++shown;
    }
    if (args.count("save-outputs") != 0) llm::save_tensors(args["save-outputs"].as<std::string>(), outputs);
  });
}
