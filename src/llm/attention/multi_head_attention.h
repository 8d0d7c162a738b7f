#pragma once

#include <torch/torch.h>

#include "llm/attention/attention_options.h"
#include "llm/attention/kv_cache.h"

namespace llm {

/// Lesson 3.6.2: multi-head attention by splitting one projection of width d_out
/// into num_heads heads of width d_out / num_heads, then out_proj.
/// [b, t, d_in] -> [b, t, d_out].
struct MultiHeadAttentionImpl : torch::nn::Module {
  explicit MultiHeadAttentionImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  /// The same for x's tokens following those in `cache`, whose keys and values are
  /// appended to it. The cache and x together must fit in context_length.
  torch::Tensor forward_cached(const torch::Tensor& x, LayerKVCache& cache);

  AttentionOptions options;
  torch::nn::Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::Tensor mask;  // [context_length, context_length]
};
TORCH_MODULE(MultiHeadAttention);

/// Grouped-query attention: num_heads query heads share num_kv_groups key/value
/// heads, so W_key and W_value project to num_kv_groups * head_dim only.
/// num_kv_groups == num_heads is MultiHeadAttention; num_kv_groups == 1 is
/// multi-query attention. [b, t, d_in] -> [b, t, d_out].
struct GroupedQueryAttentionImpl : torch::nn::Module {
  explicit GroupedQueryAttentionImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  /// As MultiHeadAttention's; the cache holds the num_kv_groups heads only.
  torch::Tensor forward_cached(const torch::Tensor& x, LayerKVCache& cache);

  AttentionOptions options;
  torch::nn::Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::Tensor mask;  // [context_length, context_length]
};
TORCH_MODULE(GroupedQueryAttention);

}  // namespace llm
