#include "llm/nn/layers.h"

#include <fmt/format.h>

#include <cmath>

#include "llm/util/error.h"

namespace llm {

LayerNormImpl::LayerNormImpl(int64_t emb_dim) {
  scale = register_parameter("scale", torch::ones({emb_dim}));
  shift = register_parameter("shift", torch::zeros({emb_dim}));
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) {
  const auto mean = x.mean(-1, /*keepdim=*/true);
  const auto var = x.var(-1, /*unbiased=*/false, /*keepdim=*/true);
  return scale * ((x - mean) / torch::sqrt(var + eps)) + shift;
}

torch::Tensor GELUImpl::forward(const torch::Tensor& x) {
  // The lesson's 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), which
  // ATen computes in one kernel forward and one backward instead of nine element-wise
  // operations and their saved intermediates (tests/test-model.cpp checks the formula).
  return torch::gelu(x, "tanh");
}

FeedForwardImpl::FeedForwardImpl(int64_t emb_dim, int64_t hidden_dim) {
  if (hidden_dim == 0) hidden_dim = 4 * emb_dim;
  // The lesson's nn.Sequential names its three modules layers.0, layers.1 and layers.2;
  // a plain module under "layers" gives the state dict those names. Built one by one:
  // the initial weights depend on the order of the generator's draws.
  const auto layers = register_module("layers", std::make_shared<torch::nn::Module>("Sequential"));
  expand = layers->register_module("0", Linear(emb_dim, hidden_dim));
  gelu = layers->register_module("1", GELU());
  contract = layers->register_module("2", Linear(hidden_dim, emb_dim));
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  return contract->forward_matvec(gelu(expand->forward_matvec(x)));  // [..., emb_dim]
}

ExampleDeepNeuralNetworkImpl::ExampleDeepNeuralNetworkImpl(const std::vector<int64_t>& sizes, bool shortcut)
    : use_shortcut(shortcut) {
  if (sizes.size() < 2) throw Error("ExampleDeepNeuralNetwork: expected at least two layer sizes");
  layers = register_module("layers", ModuleListOf<torch::nn::Sequential>());
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    layers->push_back(torch::nn::Sequential(torch::nn::Linear(sizes[i], sizes[i + 1]), GELU()));
  }
}

torch::Tensor ExampleDeepNeuralNetworkImpl::forward(torch::Tensor x) {
  for (auto& layer : *layers) {
    auto out = layer->forward(x);
    x = use_shortcut && out.sizes() == x.sizes() ? x + out : out;
  }
  return x;
}

}  // namespace llm
