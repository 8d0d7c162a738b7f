#include "llm/cli/course_script.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/generate.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/error.h"
#include "llm/util/memory.h"
#include "llm/util/show.h"

namespace llm::cli {
namespace {

constexpr const char* kStartContext = "Hello, I am";

// GPT-2's tokenizer, read once: the config needs the prompt's length, the run its ids.
const BpeTokenizer& tokenizer() {
  static const BpeTokenizer kGpt2 = BpeTokenizer::gpt2();
  return kGpt2;
}

torch::Tensor encoded_prompt() { return text_to_token_ids(tokenizer(), kStartContext); }

void print_rule_block(const char* title) {
  const auto rule = std::string(50, '=');
  fmt::print("{}\n{}{}\n{}\n", rule, std::string(22, ' '), title, rule);
}

}  // namespace

void add_course_script_flags(cxxopts::Options& options) {
  options.add_options("Model (the course's script's flags)")(
      "emb-dim", "Model embedding dimension", cxxopts::value<int64_t>()->default_value("768"), "N")(
      "n-heads", "Number of attention heads", cxxopts::value<int64_t>()->default_value("12"), "N")(
      "n-layers", "Number of transformer blocks", cxxopts::value<int64_t>()->default_value("12"), "N")(
      "max-new-tokens", "Number of tokens to generate", cxxopts::value<int64_t>()->default_value("200"), "N");
}

void add_course_variant_flags(cxxopts::Options& options, const std::string& variant) {
  auto add = options.add_options("Model (the course's script's flags)");
  if (variant == "gqa") {
    add("n-kv-groups", "Number of KV groups", cxxopts::value<int64_t>()->default_value("2"), "N");
  } else if (variant == "mla") {
    add("latent-dim", "Latent dim for MLA (default: max(16, emb-dim / 8))", cxxopts::value<int64_t>(), "N");
  } else if (variant == "swa") {
    add("sliding-window-size",
        "Window size for sliding window attention (default: the script's 1024, or the whole context when shorter)",
        cxxopts::value<int64_t>(), "N")(
        "sliding-window-stride",
        "K:1 frequency sliding window attention is applied: K sliding-window layers followed by a regular layer "
        "(0: none, negative: all)",
        cxxopts::value<int64_t>()->default_value("2"), "K");
  } else if (variant == "moe") {
    add("hidden-dim", "Intermediate FFN or MoE size", cxxopts::value<int64_t>()->default_value("3072"), "N")(
        "no-kv-cache", "Disable KV caching during generation")(
        "num-experts", "Number of experts. If 0, use dense FFN. If >0, use MoE",
        cxxopts::value<int64_t>()->default_value("0"), "N")(
        "num-experts-per-tok", "Top-k experts per token when using MoE (ignored if num-experts is 0)",
        cxxopts::value<int64_t>()->default_value("2"), "K");
  }
}

namespace {

// The keys the script of `variant` sets from its flags.
void set_variant(const cxxopts::ParseResult& args, const std::string& variant, GPTConfig& c) {
  if (variant == "mha") {
    c.attention = "swa";
    c.sliding_window_size = c.context_length;
    c.sliding_window_stride = 0;  // no layer slides
  } else if (variant == "gqa") {
    c.attention = "gqa";
    c.n_kv_groups = positive_flag(args, "n-kv-groups");
  } else if (variant == "mla") {
    c.attention = "mla";
    if (args.count("latent-dim") != 0) c.latent_dim = positive_flag(args, "latent-dim");
  } else if (variant == "swa") {
    c.attention = "swa";
    c.sliding_window_size = args.count("sliding-window-size") != 0 ? args["sliding-window-size"].as<int64_t>()
                                                                   : std::min<int64_t>(1024, c.context_length);
    c.sliding_window_stride = args["sliding-window-stride"].as<int64_t>();
  } else if (variant == "moe") {
    c.hidden_dim = args["hidden-dim"].as<int64_t>();
    c.num_experts = args["num-experts"].as<int64_t>();
    if (*c.num_experts > 0) c.num_experts_per_tok = args["num-experts-per-tok"].as<int64_t>();
  } else {
    throw Error(fmt::format("no course script of the variant '{}'; expected mha, gqa, mla, swa or moe", variant));
  }
}

}  // namespace

GPTConfig course_script_config(const cxxopts::ParseResult& args, const std::string& variant) {
  GPTConfig config;
  config.context_length = positive_flag(args, "max-new-tokens") + encoded_prompt().size(1);
  config.emb_dim = positive_flag(args, "emb-dim");
  config.n_heads = positive_flag(args, "n-heads");
  config.n_layers = positive_flag(args, "n-layers");
  config.drop_rate = 0.0;
  set_variant(args, variant, config);
  try {
    config.validate("the flags");
  } catch (const Error& e) {
    throw BadFlagValue(e.what());
  }
  return config;
}

void run_course_script(const GPTConfig& config, const cxxopts::ParseResult& args, bool kv_cache,
                       const std::string& ff_time_label) {
  const auto encoded = encoded_prompt();  // [1, 4]
  GPTModel model(config);  // the weights of seed 123 (--seed), drawn in float32
  const auto device = cli::device(args);
  model->to(device, torch::kBFloat16);
  model->eval();  // disable dropout
  // The course measures CUDA's memory, where the model arrives in bfloat16: the peak
  // counts from here, not while the float32 weights were drawn, whose freed pages go
  // back to the system (glibc keeps them otherwise).
  ::malloc_trim(0);
  reset_peak_resident_memory();
  const auto ff_times = std::make_shared<CallTimes>();
  if (!ff_time_label.empty()) {
    for (auto& block : *model->trf_blocks) block->ff_times = ff_times;
  }

  fmt::print("\n");
  print_rule_block("IN");
  fmt::print("\nInput text: {}\nEncoded input text: {}\nencoded_tensor.shape: {}\n", kStartContext,
             show_ids(encoded), torch_size(encoded));

  const auto start = std::chrono::steady_clock::now();
  const auto options = SamplingOptions(args["max-new-tokens"].as<int64_t>()).kv_cache(kv_cache);
  const auto token_ids = generate(*model, encoded.to(device), options).cpu();
  if (ff_times->calls > 0) {
    fmt::print("{}: {:.3f} ms\n", ff_time_label, ff_times->total_ms / static_cast<double>(ff_times->calls));
  }
  const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fmt::print("\n\n");
  print_rule_block("OUT");
  fmt::print("\nOutput: {}\nOutput length: {}\nOutput text: {}\n", show(token_ids), token_ids.size(1),
             token_ids_to_text(tokenizer(), token_ids));
  fmt::print("\nTime: {:.2f} sec\n{} tokens/sec\n", total_time,
             static_cast<int64_t>(static_cast<double>(token_ids.size(1)) / total_time));
  fmt::print("Max memory (resident): {:.2f} GB\n",
             static_cast<double>(peak_resident_memory()) / (1024.0 * 1024 * 1024));
  if (args.count("save-outputs") != 0) {
    torch::NoGradGuard no_grad;
    const auto logits = model->forward(token_ids.to(device));  // [1, t, vocab_size], the whole sequence uncached
    save_tensors(args["save-outputs"].as<std::string>(), {{"generated", token_ids}, {"logits", logits}});
  }
}

}  // namespace llm::cli
