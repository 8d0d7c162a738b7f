#pragma once

#include <torch/torch.h>

namespace llm {

/// `layer(x)` as PyTorch's nn.Linear computes it: at::linear, which folds a 3-D input
/// into one matrix product with the bias fused in (addmm), where LibTorch's
/// torch::nn::Linear runs matmul and then adds the bias. Same values, PyTorch's
/// autograd graph (grad_fn=<ViewBackward0>), one op fewer.
inline torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return torch::linear(x, layer->weight, layer->bias);
}

/// linear(layer, x), but a single row (one token decoded with a KV cache) goes
/// through a matrix-vector product, which the BLAS does about four times faster than
/// the same product as a one-row matrix (docs/benchmarks.md).
inline torch::Tensor linear_or_matvec(const torch::nn::Linear& layer, const torch::Tensor& x) {
  const auto& weight = layer->weight;  // [out, in]
  if (x.dim() == 0 || x.numel() != weight.size(1)) return linear(layer, x);
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  const auto row = x.reshape({-1});
  const auto y = layer->bias.defined() ? torch::addmv(layer->bias, weight, row) : torch::mv(weight, row);
  return y.view(sizes);
}

}  // namespace llm
