#pragma once

#include <cxxopts.hpp>
#include <torch/torch.h>

#include <string>

#include "llm/attention/attention_options.h"

namespace llm {

/// Defaults of the chapter-3 size flags: the lesson's.
struct AttentionFlagDefaults {
  int64_t d_in = 3, d_out = 2, num_heads = 2, num_kv_groups = 0, context_length = 6, batch = 2;
  double dropout = 0.0;
  /// false: the single-head modules of sections 3.3-3.5, which take no --num-heads.
  bool heads = true;
};

/// --d-in --d-out --num-heads (with defaults.heads) --context-length --dropout --batch-size
/// --qkv-bias
void add_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& defaults = {});
/// Those and --num-kv-groups, for grouped-query attention.
void add_grouped_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& defaults);

/// Those flags as AttentionOptions. A size below 1 or a dropout outside [0, 1) is a
/// cli::BadFlagValue naming the flag (exit 2); so is, with `split_heads` (one
/// projection split into heads), a --num-heads that does not divide --d-out.
/// `one_head`: the flags of AttentionFlagDefaults{.heads = false}, one head.
AttentionOptions attention_options(const cxxopts::ParseResult& args, bool split_heads = false, bool one_head = false);
/// The flags of add_grouped_attention_flags, heads split; also a --num-kv-groups below
/// 0 or not dividing --num-heads is a cli::BadFlagValue.
AttentionOptions grouped_attention_options(const cxxopts::ParseResult& args);

}  // namespace llm
