#pragma once

#include <torch/torch.h>

namespace llm {

/// `layer(x)`: x @ weight^T + bias. A single row (one token decoded with a KV cache)
/// goes through a matrix-vector product instead, which the BLAS does about four
/// times faster than the same product as a one-row matrix (docs/benchmarks.md).
inline torch::Tensor linear_or_matvec(torch::nn::Linear layer, const torch::Tensor& x) {
  const auto& weight = layer->weight;  // [out, in]
  if (x.dim() == 0 || x.numel() != weight.size(1)) return layer(x);
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  const auto row = x.reshape({-1});
  const auto y = layer->bias.defined() ? torch::addmv(layer->bias, weight, row) : torch::mv(weight, row);
  return y.view(sizes);
}

}  // namespace llm
