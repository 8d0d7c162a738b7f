#include "llm/nn/linear.h"

#include <fmt/format.h>

#include <cmath>

#include "llm/util/error.h"

namespace llm {

LoRAImpl::LoRAImpl(int64_t in_features, int64_t out_features, int64_t rank_, double alpha_)
    : rank(rank_), alpha(alpha_) {
  if (rank < 1) throw Error(fmt::format("LoRA: the rank must be at least 1, got {}", rank));
  A = register_parameter("A", torch::empty({in_features, rank}));
  torch::nn::init::kaiming_uniform_(A, std::sqrt(5.0));
  B = register_parameter("B", torch::zeros({rank, out_features}));
}

torch::Tensor LoRAImpl::forward(const torch::Tensor& x) {
  return (alpha / static_cast<double>(rank)) * x.matmul(A).matmul(B);  // [..., out]
}

torch::Tensor LoRAImpl::weight_delta() const {
  return (alpha / static_cast<double>(rank)) * A.mm(B).t();  // [out, in]
}

void LoRAImpl::pretty_print(std::ostream& stream) const {
  stream << "LoRALayer()";  // as the appendix's LoRALayer prints
}

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool with_bias, torch::Dtype dtype)
    : torch::nn::Module("Linear") {
  // nn.Linear's reset_parameters, draw for draw, on a tensor of the dtype (as
  // nn.Linear(..., dtype=) draws: bfloat16 draws are not float32 draws rounded).
  weight = register_parameter("weight", torch::empty({out_features, in_features}, dtype));
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (with_bias) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    bias = register_parameter("bias", torch::empty({out_features}, dtype));
    torch::nn::init::uniform_(bias, -bound, bound);
  }
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  auto y = torch::linear(x, weight, bias);
  return lora ? y + lora(x) : y;
}

torch::Tensor LinearImpl::forward_matvec(const torch::Tensor& x) {
  // BLAS's sgemv is the fast path for float32 only; LibTorch's mv of bfloat16 or
  // float16 is a plain loop, slower than its matrix product.
  if (x.dim() == 0 || x.numel() != weight.size(1) || weight.scalar_type() != torch::kFloat) return forward(x);
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  const auto row = x.reshape({-1});
  const auto y = (bias.defined() ? torch::addmv(bias, weight, row) : torch::mv(weight, row)).view(sizes);
  return lora ? y + lora(x) : y;
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("Linear(in_features={}, out_features={}, bias={})", weight.size(1), weight.size(0),
                        bias.defined() ? "True" : "False");
}

int64_t add_lora(torch::nn::Module& module, int64_t rank, double alpha) {
  int64_t added = 0;
  for (const auto& child : module.modules(/*include_self=*/false)) {  // depth first, in registration order
    auto* linear = child->as<LinearImpl>();
    if (linear == nullptr) continue;
    if (linear->lora) throw Error("add_lora: a Linear layer has a LoRA already");
    LoRA lora(linear->weight.size(1), linear->weight.size(0), rank, alpha);  // drawn on the CPU
    lora->to(linear->weight.device(), linear->weight.scalar_type());
    linear->lora = linear->register_module("lora", lora);
    ++added;
  }
  return added;
}

bool has_lora(const torch::nn::Module& module) {
  for (const auto& child : module.modules(/*include_self=*/false)) {
    if (const auto* linear = child->as<LinearImpl>(); linear != nullptr && linear->lora) return true;
  }
  return false;
}

int64_t merge_lora(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  int64_t merged = 0;
  for (const auto& child : module.modules(/*include_self=*/false)) {
    auto* linear = child->as<LinearImpl>();
    if (linear == nullptr || !linear->lora) continue;
    linear->weight.add_(linear->lora->weight_delta());
    linear->unregister_module("lora");
    linear->lora = nullptr;
    ++merged;
  }
  return merged;
}

}  // namespace llm
