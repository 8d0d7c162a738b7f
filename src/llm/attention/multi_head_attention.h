#pragma once

#include <torch/torch.h>

#include "llm/attention/attention_options.h"
#include "llm/attention/kv_cache.h"
#include "llm/util/linear.h"

namespace llm {

/// Lesson 3.6.2: multi-head attention by splitting one projection of width d_out
/// into num_heads heads of width head_dim = d_out / num_heads, then out_proj.
/// [b, t, d_in] -> [b, t, d_out].
///
/// With num_kv_groups set it is grouped-query attention, as the course builds it
/// (ch04/04_gqa): the query heads share num_kv_groups key/value heads, so W_key and
/// W_value project to num_kv_groups * head_dim only, and the KV cache holds that many
/// heads; one group is multi-query attention. Its layout is the course's too: the
/// projections made in the order W_key, W_value, W_query, out_proj without a bias, and
/// no mask in the state dict.
struct MultiHeadAttentionImpl : torch::nn::Module {
  explicit MultiHeadAttentionImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  /// The same for x's tokens following those in `cache`, whose keys and values are
  /// appended to it. The cache and x together must fit in context_length.
  torch::Tensor forward_cached(const torch::Tensor& x, LayerKVCache& cache);

  AttentionOptions options;
  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::Tensor mask;  // [context_length, context_length]; a buffer of multi-head attention only

  /// When set, forward() keeps its attention weights in recorded_weights: [b,
  /// num_heads, t, t], after the softmax and before dropout. Off, it costs nothing.
  bool record_weights = false;
  torch::Tensor recorded_weights;

 private:
  /// The mask, on x's device: grouped-query attention makes it on first use.
  const torch::Tensor& mask_for(const torch::Tensor& x);
};
TORCH_MODULE(MultiHeadAttention);

/// The name the grouped-query lesson step uses: MultiHeadAttention with
/// num_kv_groups set.
using GroupedQueryAttention = MultiHeadAttention;

}  // namespace llm
