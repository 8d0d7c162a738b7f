// Chapter 4's bonus on multi-head latent attention (ch04/05_mla, gpt_with_kv_mla.py):
// the GPT with MLA, whose KV cache keeps each token's latent instead of its keys and
// values, built after seed 123 in bfloat16 as the script builds it, continues "Hello,
// I am" greedily through the cache. It prints what the script prints; the course's
// CUDA "Max memory allocated" is the process's peak resident memory here.
#include <fmt/format.h>

#include <chrono>

#include "llm/cli/cli.h"
#include "llm/model/generate.h"
#include "llm/model/gpt_model.h"
#include "llm/util/memory.h"
#include "llm/util/show.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-08-mla", "The GPT with multi-head latent attention and its latent KV cache");
  options.add_options("Model (the course's script's flags)")(
      "emb-dim", "Model embedding dimension", cxxopts::value<int64_t>()->default_value("768"), "N")(
      "n-heads", "Number of attention heads", cxxopts::value<int64_t>()->default_value("12"), "N")(
      "n-layers", "Number of transformer blocks", cxxopts::value<int64_t>()->default_value("12"), "N")(
      "max-new-tokens", "Number of tokens to generate", cxxopts::value<int64_t>()->default_value("200"), "N")(
      "latent-dim", "Latent dim for MLA (default: max(16, emb-dim / 8))", cxxopts::value<int64_t>(), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const std::string start_context = "Hello, I am";
    const auto encoded = llm::text_to_token_ids(tokenizer, start_context);  // [1, 4]

    llm::GPTConfig config;
    config.context_length = llm::cli::positive_flag(args, "max-new-tokens") + encoded.size(1);
    config.emb_dim = llm::cli::positive_flag(args, "emb-dim");
    config.n_heads = llm::cli::positive_flag(args, "n-heads");
    config.n_layers = llm::cli::positive_flag(args, "n-layers");
    config.drop_rate = 0.0;
    config.attention = "mla";
    if (args.count("latent-dim") != 0) config.latent_dim = llm::cli::positive_flag(args, "latent-dim");
    try {
      config.validate("the flags");
    } catch (const llm::Error& e) {
      throw llm::cli::BadFlagValue(e.what());
    }
    llm::GPTModel model(config);  // the weights of seed 123 (--seed), drawn in float32
    const auto device = llm::cli::device(args);
    model->to(device, torch::kBFloat16);
    model->eval();  // disable dropout

    const auto rule = std::string(50, '=');
    fmt::print("\n{}\n{}IN\n{}\n", rule, std::string(22, ' '), rule);
    fmt::print("\nInput text: {}\nEncoded input text: {}\nencoded_tensor.shape: {}\n", start_context,
               llm::show_ids(encoded), llm::torch_size(encoded));

    const auto start = std::chrono::steady_clock::now();
    const auto token_ids = llm::generate(*model, encoded.to(device), llm::SamplingOptions(args["max-new-tokens"].as<int64_t>()));
    const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    fmt::print("\n\n{}\n{}OUT\n{}\n", rule, std::string(22, ' '), rule);
    fmt::print("\nOutput: {}\nOutput length: {}\nOutput text: {}\n", llm::show(token_ids.cpu()), token_ids.size(1),
               llm::token_ids_to_text(tokenizer, token_ids.cpu()));
    fmt::print("\nTime: {:.2f} sec\n{} tokens/sec\n", total_time,
               static_cast<int64_t>(static_cast<double>(token_ids.size(1)) / total_time));
    fmt::print("Max memory (resident): {:.2f} GB\n", static_cast<double>(llm::peak_resident_memory()) / (1024.0 * 1024 * 1024));
  });
}
