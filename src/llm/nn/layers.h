#pragma once

#include <torch/torch.h>

#include "llm/nn/linear.h"
#include "llm/nn/module_list.h"

namespace llm {

/// Lesson 4.2: layer normalisation over the last dimension with a learned scale and
/// shift, eps 1e-5 and the biased variance. [..., emb_dim] -> [..., emb_dim].
struct LayerNormImpl : torch::nn::Module {
  explicit LayerNormImpl(int64_t emb_dim);
  torch::Tensor forward(const torch::Tensor& x);

  double eps = 1e-5;
  torch::Tensor scale, shift;  // [emb_dim]
};
TORCH_MODULE(LayerNorm);

/// Lesson 4.3: GELU, the tanh approximation GPT-2 was trained with.
struct GELUImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
TORCH_MODULE(GELU);

/// Lesson 4.3: emb_dim -> hidden_dim (0: the lesson's 4 * emb_dim) -> GELU -> emb_dim, its modules under the
/// lesson's state-dict names (layers.0, layers.1, layers.2). forward calls them by
/// name, so that decoding one token takes the matrix-vector path
/// (Linear::forward_matvec), which an nn::Sequential would not.
struct FeedForwardImpl : torch::nn::Module {
  explicit FeedForwardImpl(int64_t emb_dim, int64_t hidden_dim = 0);
  torch::Tensor forward(const torch::Tensor& x);

  Linear expand{nullptr}, contract{nullptr};
  GELU gelu{nullptr};
};
TORCH_MODULE(FeedForward);

/// Lesson 4.4: five Linear + GELU layers, optionally with shortcut connections, to
/// show how shortcuts keep gradients from vanishing.
struct ExampleDeepNeuralNetworkImpl : torch::nn::Module {
  ExampleDeepNeuralNetworkImpl(const std::vector<int64_t>& layer_sizes, bool use_shortcut);
  torch::Tensor forward(torch::Tensor x);

  bool use_shortcut;
  ModuleListOf<torch::nn::Sequential> layers{nullptr};  // each Linear, then GELU
};
TORCH_MODULE(ExampleDeepNeuralNetwork);

}  // namespace llm
