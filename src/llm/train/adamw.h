#pragma once

#include <torch/torch.h>

namespace llm {

/// torch::optim::AdamW with the same options, state and results, whose step updates
/// each contiguous float32 CPU parameter in one pass: weight decay, both moments, bias
/// correction and the update per element, where LibTorch's step runs about ten
/// tensor-wide operations and allocates two parameter-sized temporaries. Other
/// parameters (CUDA, other dtypes) take LibTorch's operations; amsgrad takes LibTorch's
/// step. Checkpoints are unchanged: the state is torch::optim::AdamWParamState.
///
/// The per-element arithmetic is LibTorch's, in float32; only the rounding of a fused
/// multiply-add here and there may differ from its vectorised kernels (last-bit
/// differences; see tests/test-train.cpp).
class AdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;

  torch::Tensor step(LossClosure closure = nullptr) override;

  /// The key of a parameter's entry in state(): LibTorch's AdamW keys its state by
  /// the address of the parameter's TensorImpl.
  static std::string state_key(const torch::Tensor& parameter) {
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
  }
};

}  // namespace llm
