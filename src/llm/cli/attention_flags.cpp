#include "llm/cli/attention_flags.h"

#include <fmt/format.h>

#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/memory.h"

namespace llm {

void add_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& d) {
  // fmt's shortest form: 0.1, not std::to_string's 0.100000.
  const auto value = [](auto v) { return cxxopts::value<decltype(v)>()->default_value(fmt::format("{}", v)); };
  options.add_options("Sizes")("d-in", "Width of each input vector", value(d.d_in), "N")(
      "d-out", "Width of the output (per head for stacked heads)", value(d.d_out), "N");
  if (d.heads) options.add_options("Sizes")("num-heads", "Attention heads", value(d.num_heads), "N");
  options.add_options("Sizes")("context-length", "Tokens per input (and the mask's size)", value(d.context_length),
                               "N")("dropout", "Dropout on the attention weights (training mode)", value(d.dropout),
                                    "X")("batch-size", "Inputs per batch", value(d.batch), "N")(
      "qkv-bias", "Bias in the query, key and value projections", cxxopts::value<bool>()->default_value("false"),
      "BOOL");
}

AttentionOptions attention_options(const cxxopts::ParseResult& args, bool split_heads, bool one_head) {
  const auto d_in = cli::positive_flag(args, "d-in"), d_out = cli::positive_flag(args, "d-out");
  const auto heads = one_head ? 1 : cli::positive_flag(args, "num-heads");
  const auto context = cli::positive_flag(args, "context-length");
  const auto batch = cli::positive_flag(args, "batch-size");
  const auto dropout = args["dropout"].as<double>();
  if (!(dropout >= 0.0 && dropout < 1.0)) {
    throw cli::BadFlagValue(fmt::format("--dropout must be in [0, 1), got {}", dropout));
  }
  if (split_heads && d_out % heads != 0) {
    throw cli::BadFlagValue(fmt::format("--num-heads ({}) must divide --d-out ({})", heads, d_out));
  }
  // The weights, the inputs, the attention weights of every head and a few
  // intermediates of their sizes, in float32: sizes that cannot fit are refused here,
  // not by the allocator.
  const auto b = static_cast<double>(batch), t = static_cast<double>(context), d = static_cast<double>(d_in);
  const auto width = static_cast<double>(split_heads ? d_out : d_out * heads), h = static_cast<double>(heads);
  const double bytes = 4 * (4 * d * width + width * width + t * t + 4 * b * t * (d + width) + 4 * b * h * t * t);
  try {
    check_fits_in_memory(bytes, fmt::format("--batch-size {}, --context-length {}, --d-in {}, --d-out {} and --num-heads {}",
                                            batch, context, d_in, d_out, heads));
  } catch (const Error& e) {
    throw cli::BadFlagValue(e.what());
  }
  return AttentionOptions(d_in, d_out)
      .context_length(context)
      .num_heads(heads)
      .dropout(dropout)
      .qkv_bias(args["qkv-bias"].as<bool>());
}

void add_grouped_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& d) {
  add_attention_flags(options, d);
  options.add_options("Sizes")("num-kv-groups", "Key/value heads (0: one per query head)",
                               cxxopts::value<int64_t>()->default_value(std::to_string(d.num_kv_groups)), "N");
}

AttentionOptions grouped_attention_options(const cxxopts::ParseResult& args) {
  const auto groups = args["num-kv-groups"].as<int64_t>();
  if (groups < 0) throw cli::BadFlagValue(fmt::format("--num-kv-groups must be 0 (one per head) or more, got {}", groups));
  auto options = attention_options(args, /*split_heads=*/true);
  if (groups > 0 && options.num_heads() % groups != 0) {
    throw cli::BadFlagValue(
        fmt::format("--num-kv-groups ({}) must divide --num-heads ({})", groups, options.num_heads()));
  }
  return options.num_kv_groups(groups);
}

}  // namespace llm
