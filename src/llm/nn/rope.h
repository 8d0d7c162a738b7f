#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>

namespace llm {

/// Llama 3's rescaling of RoPE's frequencies for long contexts (the config's
/// "rope_freq"): wavelengths longer than original_context_length / low_freq_factor are
/// slowed by `factor`, those shorter than original_context_length / high_freq_factor
/// keep theirs, and those between blend the two smoothly.
struct RopeScaling {
  double factor = 32.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_context_length = 8192;
};

/// The rotation angles' cosines and sines for every position, [context_length,
/// head_dim] float32, in the split-halves layout: column i and i + head_dim / 2 share
/// a frequency.
struct RopeTables {
  torch::Tensor cos, sin;
};

/// The course's compute_rope_params: inverse frequencies 1 / theta_base^(2i / head_dim)
/// for i < head_dim / 2 (rescaled when `scaling` is given), times positions
/// 0..context_length-1. Gemma 3 calls it twice, with its local and its global base.
RopeTables compute_rope_params(int64_t head_dim, double theta_base, int64_t context_length,
                               const std::optional<RopeScaling>& scaling = std::nullopt);

/// The course's apply_rope: rotates x [b, heads, t, head_dim] by the angles of
/// positions offset..offset+t-1 (offset: the tokens a KV cache holds before x's),
/// x * cos + rotate_half(x) * sin, with rotate_half(x) = [-x2, x1] for x's halves x1
/// and x2. The result has x's dtype.
torch::Tensor apply_rope(const torch::Tensor& x, const RopeTables& rope, int64_t offset = 0);

}  // namespace llm
