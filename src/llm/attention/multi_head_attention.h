#pragma once

#include <torch/torch.h>

#include "llm/attention/attention_options.h"

namespace llm {

/// Lesson 3.6.2: multi-head attention by splitting one projection of width d_out
/// into num_heads heads of width d_out / num_heads, then out_proj.
/// [b, t, d_in] -> [b, t, d_out].
struct MultiHeadAttentionImpl : torch::nn::Module {
  explicit MultiHeadAttentionImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

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

  AttentionOptions options;
  torch::nn::Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::Tensor mask;  // [context_length, context_length]
};
TORCH_MODULE(GroupedQueryAttention);

}  // namespace llm
