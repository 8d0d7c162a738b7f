#pragma once

#include <torch/torch.h>

#include "llm/attention/attention_options.h"

namespace llm {

/// Lesson 3.4.1: self-attention with raw weight matrices, initialised with
/// torch.rand as in the lesson. [t, d_in] -> [t, d_out].
struct SelfAttentionV1Impl : torch::nn::Module {
  explicit SelfAttentionV1Impl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor W_query, W_key, W_value;  // [d_in, d_out]
};
TORCH_MODULE(SelfAttentionV1);

/// Lesson 3.4.2: the same with Linear layers (optionally with bias). [t, d_in] -> [t, d_out].
struct SelfAttentionV2Impl : torch::nn::Module {
  explicit SelfAttentionV2Impl(const AttentionOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr};
};
TORCH_MODULE(SelfAttentionV2);

}  // namespace llm
