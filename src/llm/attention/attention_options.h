#pragma once

#include <torch/arg.h>

#include <cstdint>
#include <string_view>

namespace llm {

/// Sizes of every attention module in chapter 3; each module reads the ones it needs.
struct AttentionOptions {
  AttentionOptions(int64_t d_in, int64_t d_out) : d_in_(d_in), d_out_(d_out) {}
  /// The key/value heads: num_kv_groups, or num_heads when it is 0.
  int64_t kv_heads() const { return num_kv_groups_ > 0 ? num_kv_groups_ : num_heads_; }

  /// Width of each input vector.
  TORCH_ARG(int64_t, d_in);
  /// Width of the output: of each head for CausalAttention and the stacked heads,
  /// of all heads together for MultiHeadAttention.
  TORCH_ARG(int64_t, d_out);
  /// Longest sequence the causal mask covers.
  TORCH_ARG(int64_t, context_length) = 1024;
  /// Query heads.
  TORCH_ARG(int64_t, num_heads) = 1;
  /// Key/value heads of GroupedQueryAttention; each serves num_heads / num_kv_groups
  /// query heads. 0 means one per query head (MultiHeadAttention takes only 0).
  TORCH_ARG(int64_t, num_kv_groups) = 0;
  /// Probability of zeroing an attention weight while training.
  TORCH_ARG(double, dropout) = 0.0;
  /// Bias terms in the query, key and value projections.
  TORCH_ARG(bool, qkv_bias) = false;
};

/// Throws llm::Error naming the first impossible size, e.g. "attention: d_out (10)
/// must be divisible by num_heads (3)". `heads` and `groups` say whether the module
/// uses num_heads and num_kv_groups (0, or a divisor of num_heads).
void check_attention_options(const AttentionOptions& options, std::string_view module, bool heads, bool groups);

}  // namespace llm
