// Lessons 2.7-2.8: token embeddings as a lookup table, plus absolute position
// embeddings, applied to a batch from the data loader.
#include <fmt/format.h>

#include <utility>

#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

// 2.7: a 6 x 3 embedding is a lookup table of rows, one per token id. Returns it and
// the ids it looks up.
std::pair<torch::nn::Embedding, torch::Tensor> lookup_table(torch::Device device) {
  torch::nn::Embedding small(/*num_embeddings=*/6, /*embedding_dim=*/3);
  small->to(device);
  auto small_ids = torch::tensor({2, 3, 5, 1}, torch::kLong).to(device);
  fmt::print("Parameter containing:\n{}\n", llm::show(small->weight));
  fmt::print("{}\n{}\n", llm::show(small(torch::tensor({3}, torch::kLong).to(device))), llm::show(small(small_ids)));
  return {small, small_ids};
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-05-embeddings", "Token and position embeddings of a batch");
  options.add_options()("data", "Text to take the batch from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "vocab-size", "Rows of the token embedding", cxxopts::value<int64_t>()->default_value("50257"), "N")(
      "output-dim", "Embedding width", cxxopts::value<int64_t>()->default_value("256"), "N")(
      "max-length", "Tokens per input, and rows of the position embedding",
      cxxopts::value<int64_t>()->default_value("4"), "N")(
      "batch-size", "Inputs per batch", cxxopts::value<int64_t>()->default_value("8"), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const int64_t vocab_size = args["vocab-size"].as<int64_t>(), output_dim = args["output-dim"].as<int64_t>();
    const int64_t max_length = args["max-length"].as<int64_t>();
    if (vocab_size <= 0 || output_dim <= 0) {
      throw llm::cli::BadFlagValue(fmt::format("--vocab-size ({}) and --output-dim ({}) must be positive", vocab_size, output_dim));
    }

    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto ids = tokenizer.encode(llm::cli::read_input_text(args["data"].as<std::string>(), 12), {"<|endoftext|>"});
    auto dataset = std::make_shared<llm::SlidingWindowDataset>(torch::tensor(ids), max_length, /*stride=*/max_length);

    const auto [small, small_ids] = lookup_table(device);

    // 2.8: token plus position embeddings for a batch of GPT-2 token ids.
    torch::nn::Embedding token_embedding(vocab_size, output_dim);
    token_embedding->to(device);
    const llm::DataLoader loader(dataset, llm::DataLoaderOptions(args["batch-size"].as<int64_t>()).shuffle(false));
    const auto inputs = loader.begin()->inputs.to(device);  // [batch, max_length]
    const int64_t largest = inputs.max().item<int64_t>();
    if (largest >= vocab_size) {
      throw llm::cli::BadFlagValue(fmt::format("--vocab-size {} is too small for token id {}", vocab_size, largest));
    }
    const auto token_embeddings = token_embedding(inputs);  // [batch, max_length, output_dim]

    torch::nn::Embedding position_embedding(/*num_embeddings=*/max_length, output_dim);
    position_embedding->to(device);
    const auto pos_embeddings = position_embedding(torch::arange(max_length, device));  // [max_length, output_dim]
    const auto input_embeddings = token_embeddings + pos_embeddings;            // [batch, max_length, output_dim]

    fmt::print("Token IDs:\n {}\n\nInputs shape:\n {}\n", llm::show(inputs), llm::torch_size(inputs));
    fmt::print("{}\n{}\n{}\n", llm::torch_size(token_embeddings), llm::torch_size(pos_embeddings),
               llm::torch_size(input_embeddings));

    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"small_weight", small->weight},
                         {"small_ids", small_ids},
                         {"inputs", inputs},
                         {"token_embeddings", token_embeddings},
                         {"pos_embeddings", pos_embeddings},
                         {"input_embeddings", input_embeddings}});
    }
  });
}
