#pragma once

#include <torch/torch.h>

#include "llm/attention/attention_options.h"
#include "llm/nn/module_list.h"

namespace llm {

/// Lesson 3.5: batched self-attention that hides future tokens and drops attention
/// weights while training. [b, t, d_in] -> [b, t, d_out].
struct CausalAttentionImpl : torch::nn::Module {
  explicit CausalAttentionImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

  AttentionOptions options;
  torch::nn::Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::Tensor mask;  // [context_length, context_length]
  /// As MultiHeadAttention's: when set, forward() keeps its attention weights in
  /// recorded_weights, [b, t, t], after the softmax and before dropout.
  bool record_weights = false;
  torch::Tensor recorded_weights;
};
TORCH_MODULE(CausalAttention);

/// Lesson 3.6.1: num_heads independent CausalAttention heads on the same input,
/// concatenated. [b, t, d_in] -> [b, t, num_heads * d_out].
struct MultiAttentionStackingImpl : torch::nn::Module {
  explicit MultiAttentionStackingImpl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

  ModuleListOf<CausalAttention> heads{nullptr};
};
TORCH_MODULE(MultiAttentionStacking);

}  // namespace llm
