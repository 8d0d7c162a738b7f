#include "llm/model/layers.h"

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
  static const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1 + torch::tanh(kSqrt2OverPi * (x + 0.044715 * torch::pow(x, 3))));
}

FeedForwardImpl::FeedForwardImpl(int64_t emb_dim) {
  // Built one by one: C++ leaves the order of a call's arguments open, and the
  // initial weights depend on the order of the generator's draws.
  torch::nn::Linear expand(emb_dim, 4 * emb_dim);
  torch::nn::Linear contract(4 * emb_dim, emb_dim);
  layers = register_module("layers", torch::nn::Sequential(expand, GELU(), contract));
}

ExampleDeepNeuralNetworkImpl::ExampleDeepNeuralNetworkImpl(const std::vector<int64_t>& sizes, bool shortcut)
    : use_shortcut(shortcut) {
  if (sizes.size() < 2) throw Error("ExampleDeepNeuralNetwork: expected at least two layer sizes");
  layers = register_module("layers", torch::nn::ModuleList());
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    layers->push_back(torch::nn::Sequential(torch::nn::Linear(sizes[i], sizes[i + 1]), GELU()));
  }
}

torch::Tensor ExampleDeepNeuralNetworkImpl::forward(torch::Tensor x) {
  for (const auto& layer : *layers) {
    auto out = layer->as<torch::nn::Sequential>()->forward(x);
    x = use_shortcut && out.sizes() == x.sizes() ? x + out : out;
  }
  return x;
}

}  // namespace llm
