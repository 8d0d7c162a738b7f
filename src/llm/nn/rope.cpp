#include "llm/nn/rope.h"

#include <fmt/format.h>

#include <cmath>

#include "llm/util/error.h"

namespace llm {
namespace {

// Llama 3's frequency rescaling (llama3.py's compute_rope_params, freq_config).
torch::Tensor rescaled(const torch::Tensor& inv_freq, const RopeScaling& s) {
  const double original = static_cast<double>(s.original_context_length);
  const double low_freq_wavelen = original / s.low_freq_factor;
  const double high_freq_wavelen = original / s.high_freq_factor;
  const auto wavelen = inv_freq.reciprocal() * (2 * M_PI);
  const auto slowed = inv_freq / s.factor;
  const auto smooth_factor = (wavelen.reciprocal() * original - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  const auto smoothed = (1 - smooth_factor) * slowed + smooth_factor * inv_freq;
  const auto is_medium = (wavelen <= low_freq_wavelen).logical_and(wavelen >= high_freq_wavelen);
  return torch::where(is_medium, smoothed, torch::where(wavelen > low_freq_wavelen, slowed, inv_freq));
}

}  // namespace

RopeTables compute_rope_params(int64_t head_dim, double theta_base, int64_t context_length,
                               const std::optional<RopeScaling>& scaling) {
  if (head_dim <= 0 || head_dim % 2 != 0) throw Error(fmt::format("RoPE: head_dim must be even, got {}", head_dim));
  const auto exponents = torch::arange(0, head_dim, 2, torch::kFloat) / static_cast<double>(head_dim);
  auto inv_freq = torch::pow(theta_base, exponents).reciprocal();  // [head_dim / 2]
  if (scaling) inv_freq = rescaled(inv_freq, *scaling);
  const auto positions = torch::arange(context_length, torch::kFloat);
  auto angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0);  // [context_length, head_dim / 2]
  angles = torch::cat({angles, angles}, /*dim=*/1);              // [context_length, head_dim]
  return {torch::cos(angles), torch::sin(angles)};
}

torch::Tensor apply_rope(const torch::Tensor& x, const RopeTables& rope, int64_t offset) {
  const int64_t t = x.size(-2), half = x.size(-1) / 2;
  const auto cos = rope.cos.slice(0, offset, offset + t);  // [t, head_dim], broadcast over b and heads
  const auto sin = rope.sin.slice(0, offset, offset + t);
  const auto rotated = torch::cat({-x.slice(-1, half), x.slice(-1, 0, half)}, /*dim=*/-1);
  return (x * cos + rotated * sin).to(x.scalar_type());
}

}  // namespace llm
