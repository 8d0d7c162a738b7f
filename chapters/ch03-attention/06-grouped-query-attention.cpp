// Grouped-query attention: query heads share fewer key/value heads, which shrinks the
// key/value projections and the KV cache. One group is multi-query attention; one
// group per head is multi-head attention.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/attention/simplified.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-06-grouped-query-attention", "Grouped-query attention and what it saves");
  llm::AttentionFlagDefaults defaults;
  defaults.d_in = defaults.d_out = 768;
  defaults.num_heads = 12;
  defaults.num_kv_groups = 3;
  llm::add_grouped_attention_flags(options, defaults);
  options.add_options()("cache-tokens", "Tokens held in the KV cache for the memory figures",
                        cxxopts::value<int64_t>()->default_value("1024"), "N")(
      "layers", "Transformer layers for the memory figures", cxxopts::value<int64_t>()->default_value("12"), "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::grouped_attention_options(args);
    llm::GroupedQueryAttention gqa(o);
    gqa->to(device);
    const auto x = llm::attention_input({args["batch-size"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    const auto out = gqa->forward(x);  // [b, t, d_out]
    const int64_t head_dim = o.d_out() / o.num_heads(), group_size = o.num_heads() / o.kv_heads();
    fmt::print("{} query heads share {} key/value heads ({} queries per group), head_dim {}\n", o.num_heads(),
               o.kv_heads(), group_size, head_dim);
    fmt::print("Output {}, the first 4 values of the first row:\n{}\n\n", llm::shape(out), llm::show(out[0][0].slice(0, 0, 4).unsqueeze(0)));

    // What the groups save against multi-head attention of the same sizes.
    const int64_t bias = o.qkv_bias() ? 1 : 0;
    const int64_t kv_mha = 2 * (o.d_in() + bias) * o.d_out();
    const int64_t kv_gqa = 2 * (o.d_in() + bias) * o.kv_heads() * head_dim;
    fmt::print("Key/value projection parameters: MHA {}, GQA {} ({:.1f}% fewer)\n", kv_mha, kv_gqa,
               100.0 * static_cast<double>(kv_mha - kv_gqa) / static_cast<double>(kv_mha));
    const int64_t tokens = args["cache-tokens"].as<int64_t>(), layers = args["layers"].as<int64_t>();
    const auto cache_bytes = [&](int64_t kv_heads) {  // keys + values, float32
      return static_cast<double>(2 * kv_heads * head_dim * tokens * layers * 4);
    };
    fmt::print("KV cache for {} tokens x {} layers at float32, per sequence: MHA {:.2f} MB, GQA {:.2f} MB ({}x less)\n",
               tokens, layers, cache_bytes(o.num_heads()) / 1e6, cache_bytes(o.kv_heads()) / 1e6, group_size);
    fmt::print("Parameters of the module: {}\n", llm::parameter_count(*gqa));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(
          args["save-outputs"].as<std::string>(),
          llm::record_attention_run("grouped_query_attention", llm::cli::seed(args), o, gqa, x, out));
    }
  });
}
