#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "llm/nn/linear.h"

namespace llm {

/// The activation of a gated feed-forward's gate.
enum class GateActivation {
  kSiLU,      // SwiGLU: Llama 3 and Qwen3
  kGELUTanh,  // GeGLU: Gemma 3, GELU's tanh approximation
};

/// The feed-forward of Llama 3, Qwen3 and Gemma 3 (the course's FeedForward):
/// fc3(act(fc1(x)) * fc2(x)), emb_dim -> hidden_dim -> emb_dim, no biases.
/// [..., emb_dim] -> [..., emb_dim].
struct GatedFeedForwardImpl : torch::nn::Module {
  GatedFeedForwardImpl(int64_t emb_dim, int64_t hidden_dim, GateActivation activation,
                       torch::Dtype dtype = torch::kFloat);
  torch::Tensor forward(const torch::Tensor& x);

  GateActivation activation;
  Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
TORCH_MODULE(GatedFeedForward);

}  // namespace llm
