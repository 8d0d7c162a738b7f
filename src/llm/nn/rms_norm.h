#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <ostream>

namespace llm {

/// Root-mean-square normalisation over the last dimension, x / sqrt(mean(x^2) + eps),
/// computed in float32 whatever x's dtype, times a learned per-feature weight. The
/// course's three models differ in where the result returns to x's dtype and in how
/// the weight applies:
enum class RMSNormStyle {
  /// Llama 3 (PyTorch's nn.RMSNorm): back to x's dtype, then times `weight` (ones).
  kLlama,
  /// Qwen3 (qwen3.py's RMSNorm): times `scale` (ones) in float32, then back.
  kQwen3,
  /// Gemma 3 (the notebook's RMSNorm): times (1 + `scale`) in float32, then back;
  /// `scale` starts at zeros, as Gemma stores it.
  kGemma,
};

/// [..., dim] -> [..., dim], the parameter under the reference's name ("weight" for
/// Llama's nn.RMSNorm, "scale" for the others).
struct RMSNormImpl : torch::nn::Module {
  /// `dtype`: the weight's (Llama's nn.RMSNorm takes the model's; Qwen3's and Gemma's
  /// are float32 in the course's code).
  RMSNormImpl(int64_t dim, double eps, RMSNormStyle style, torch::Dtype dtype = torch::kFloat);
  torch::Tensor forward(const torch::Tensor& x);
  /// As the reference prints it: Llama's nn.RMSNorm "RMSNorm((2048,), eps=1e-05,
  /// elementwise_affine=True)", the course's own class "RMSNorm()".
  void pretty_print(std::ostream& stream) const override;

  double eps;
  RMSNormStyle style;
  torch::Tensor weight;  // [dim], registered as "weight" or "scale"
};
TORCH_MODULE(RMSNorm);

}  // namespace llm
