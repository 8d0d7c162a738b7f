#include "llm/nn/rms_norm.h"

#include <fmt/format.h>

namespace llm {

RMSNormImpl::RMSNormImpl(int64_t dim, double eps_, RMSNormStyle style_, torch::Dtype dtype)
    : torch::nn::Module("RMSNorm"), eps(eps_), style(style_) {
  weight = style == RMSNormStyle::kLlama ? register_parameter("weight", torch::ones({dim}, dtype))
           : style == RMSNormStyle::kQwen3 ? register_parameter("scale", torch::ones({dim}, dtype))
                                           : register_parameter("scale", torch::zeros({dim}, dtype));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  const auto x32 = x.to(torch::kFloat);
  const auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);  // [..., dim] float32
  switch (style) {
    case RMSNormStyle::kLlama:
      return normed.to(x.scalar_type()) * weight;
    case RMSNormStyle::kQwen3:
      return (normed * weight).to(x.scalar_type());
    case RMSNormStyle::kGemma:
      return (normed * (1.0 + weight.to(torch::kFloat))).to(x.scalar_type());
  }
  return normed;  // unreachable: every style returns above
}

void RMSNormImpl::pretty_print(std::ostream& stream) const {
  if (style == RMSNormStyle::kLlama) {
    stream << fmt::format("RMSNorm(({},), eps={}, elementwise_affine=True)", weight.size(0), eps);
  } else {
    stream << "RMSNorm()";
  }
}

}  // namespace llm
