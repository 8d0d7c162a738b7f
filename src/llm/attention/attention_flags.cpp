#include "llm/attention/attention_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/attention/simplified.h"
#include "llm/util/error.h"

namespace llm {

void add_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& d) {
  const auto value = [](auto v) { return cxxopts::value<decltype(v)>()->default_value(std::to_string(v)); };
  options.add_options("Sizes")("d-in", "Width of each input vector", value(d.d_in))(
      "d-out", "Width of the output (per head for stacked heads)", value(d.d_out))(
      "num-heads", "Attention heads", value(d.num_heads))(
      "num-kv-groups", "Key/value groups of grouped-query attention", value(d.num_kv_groups))(
      "context-length", "Tokens per input (and the mask's size)", value(d.context_length))(
      "dropout", "Dropout on the attention weights (training mode)", value(d.dropout))(
      "batch", "Inputs per batch", value(d.batch))(
      "qkv-bias", "Bias in the query, key and value projections",
      cxxopts::value<bool>()->default_value("false"));
}

AttentionOptions attention_options(const cxxopts::ParseResult& args) {
  return AttentionOptions(args["d-in"].as<int64_t>(), args["d-out"].as<int64_t>())
      .context_length(args["context-length"].as<int64_t>())
      .num_heads(args["num-heads"].as<int64_t>())
      .num_kv_groups(args["num-kv-groups"].as<int64_t>())
      .dropout(args["dropout"].as<double>())
      .qkv_bias(args["qkv-bias"].as<bool>());
}

torch::Tensor attention_input(torch::IntArrayRef shape) {
  for (const int64_t size : shape) {
    if (size <= 0) throw Error(fmt::format("input sizes must be positive, got [{}]", fmt::join(shape, ", ")));
  }
  const int64_t n = static_cast<int64_t>(shape.size());
  if (n >= 2 && shape[n - 2] == 6 && shape[n - 1] == 3) return journey_inputs().expand(shape).clone().requires_grad_();
  return torch::rand(shape).requires_grad_();
}

namespace detail {

NamedTensors attention_header(const std::string& kind, uint64_t seed, const AttentionOptions& o) {
  return {{"kind", string_tensor(kind)},
          {"seed", torch::tensor(static_cast<int64_t>(seed))},
          {"config/d_in", torch::tensor(o.d_in())},
          {"config/d_out", torch::tensor(o.d_out())},
          {"config/context_length", torch::tensor(o.context_length())},
          {"config/num_heads", torch::tensor(o.num_heads())},
          {"config/num_kv_groups", torch::tensor(o.num_kv_groups())},
          {"config/dropout", torch::tensor(o.dropout(), torch::kDouble)},
          {"config/qkv_bias", torch::tensor(o.qkv_bias())}};
}

}  // namespace detail
}  // namespace llm
