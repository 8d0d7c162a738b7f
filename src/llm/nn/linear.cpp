#include "llm/nn/linear.h"

#include <fmt/format.h>

#include <malloc.h>

#include <cmath>

#include "llm/nn/matvec.h"
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

namespace {

// The dtype a Linear converts its weight to once drawn (ConvertLinearsWhenBuilt).
thread_local WeightsDtype converted_when_built = WeightsDtype::kFloat32;

}  // namespace

ConvertLinearsWhenBuilt::ConvertLinearsWhenBuilt(WeightsDtype dtype) : outer_(converted_when_built) {
  converted_when_built = dtype;
}

ConvertLinearsWhenBuilt::~ConvertLinearsWhenBuilt() { converted_when_built = outer_; }

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool with_bias, torch::Dtype dtype)
    : torch::nn::Module("Linear"), built_dtype_(dtype) {
  // nn.Linear's reset_parameters, draw for draw, on a tensor of the dtype (as
  // nn.Linear(..., dtype=) draws: bfloat16 draws are not float32 draws rounded).
  weight = register_parameter("weight", torch::empty({out_features, in_features}, dtype));
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (with_bias) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    bias = register_parameter("bias", torch::empty({out_features}, dtype));
    torch::nn::init::uniform_(bias, -bound, bound);
  }
  if (converted_when_built == WeightsDtype::kFloat32) return;
  convert_weight(converted_when_built);
  // The executables keep freed memory in the heap (cli.cpp, keep_freed_memory): give the
  // float32 weight's pages back, or the heap would grow to the float32 model's size.
  ::malloc_trim(0);
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  auto y = weight.scalar_type() == x.scalar_type() ? torch::linear(x, weight, bias) : forward_widened(x);
  return lora ? y + lora(x) : y;
}

torch::Tensor LinearImpl::forward_widened(const torch::Tensor& x) const {
  const int64_t out = weight.size(0);
  constexpr int64_t kBlockElements = int64_t{1} << 22;  // 16 MB of float32 at a time
  const int64_t rows = std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, weight.size(1)));
  if (rows >= out) return torch::linear(x, weight_as(x.scalar_type()), bias);
  auto sizes = x.sizes().vec();
  sizes.back() = out;
  auto y = torch::empty(sizes, x.options());
  for (int64_t begin = 0; begin < out; begin += rows) {
    const int64_t n = std::min(rows, out - begin);
    const auto b = bias.defined() ? bias.narrow(0, begin, n) : torch::Tensor();
    y.narrow(-1, begin, n).copy_(torch::linear(x, rows_as(begin, n, x.scalar_type()), b));
  }
  return y;
}

namespace {

bool is_decode_dtype(torch::ScalarType t) { return t == torch::kBFloat16 || t == torch::kChar; }

}  // namespace

torch::Tensor LinearImpl::forward_matvec(const torch::Tensor& x) {
  if (x.dim() == 0 || x.numel() != weight.size(1)) return forward(x);
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  torch::Tensor y;
  if (weight.scalar_type() == torch::kFloat && x.scalar_type() == torch::kFloat) {
    const auto row = x.reshape({-1});
    y = bias.defined() ? torch::addmv(bias, weight, row) : torch::mv(weight, row);
  } else if (is_decode_dtype(weight.scalar_type()) && weight.device().is_cpu() && weight.is_contiguous() &&
             (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16)) {
    // The decode kernels; LibTorch's own mv of bfloat16 is a plain loop, slower than
    // its matrix product.
    const auto row = x.reshape({-1}).to(torch::kFloat).contiguous();
    const auto b = bias.defined() ? bias.to(torch::kFloat).contiguous() : torch::Tensor();
    y = torch::empty({weight.size(0)}, row.options());
    const float* bias_data = b.defined() ? b.data_ptr<float>() : nullptr;
    if (weight.scalar_type() == torch::kBFloat16) {
      matvec_bf16(weight.data_ptr<c10::BFloat16>(), row.data_ptr<float>(), bias_data, y.data_ptr<float>(),
                  weight.size(0), weight.size(1));
    } else {
      matvec_int8(weight.data_ptr<int8_t>(), weight_scale.data_ptr<float>(), row.data_ptr<float>(), bias_data,
                  y.data_ptr<float>(), weight.size(0), weight.size(1));
    }
    y = y.to(x.scalar_type());
  } else {
    return forward(x);
  }
  y = y.view(sizes);
  return lora ? y + lora(x) : y;
}

torch::Tensor LinearImpl::weight_as(torch::ScalarType dtype) const { return rows_as(0, weight.size(0), dtype); }

torch::Tensor LinearImpl::rows_as(int64_t begin, int64_t n, torch::ScalarType dtype) const {
  const auto rows = weight.narrow(0, begin, n);
  // Widened in place: one float32 copy of the rows at a time, not two.
  if (weight.scalar_type() == torch::kChar) {
    return rows.to(torch::kFloat).mul_(weight_scale.narrow(0, begin, n).to(weight.device()).unsqueeze(1)).to(dtype);
  }
  return weight.scalar_type() == dtype ? rows : rows.to(dtype);
}

void LinearImpl::load_weight(const torch::Tensor& w) {
  torch::NoGradGuard no_grad;
  if (weight.scalar_type() != torch::kChar) {
    weight.copy_(w);
    return;
  }
  quantize_int8(w.to(weight.device(), built_dtype_), weight, weight_scale);  // in place: no second copy
}

void LinearImpl::convert_weight(WeightsDtype dtype) {
  if (dtype == WeightsDtype::kFloat32) return;
  weight.requires_grad_(false);
  const auto target = dtype == WeightsDtype::kBFloat16 ? torch::kBFloat16 : torch::kChar;
  if (weight.scalar_type() == target) return;  // already so: nothing to convert
  torch::NoGradGuard no_grad;
  if (dtype == WeightsDtype::kBFloat16) {
    weight.set_data(weight_as(torch::kBFloat16).contiguous());
    weight_scale = torch::Tensor();
  } else {
    // A floating-point weight as it is: quantize_int8 widens it a few rows at a time.
    auto [q, scale] = quantize_int8(weight.detach());
    weight.set_data(q);
    weight_scale = scale;
  }
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

WeightsDtype parse_weights_dtype(std::string_view name) {
  if (name == "float32") return WeightsDtype::kFloat32;
  if (name == "bfloat16") return WeightsDtype::kBFloat16;
  if (name == "int8") return WeightsDtype::kInt8;
  throw Error(fmt::format("weights dtype '{}': expected float32, bfloat16 or int8", name));
}

std::string_view weights_dtype_name(WeightsDtype dtype) {
  switch (dtype) {
    case WeightsDtype::kBFloat16: return "bfloat16";
    case WeightsDtype::kInt8: return "int8";
    case WeightsDtype::kFloat32: break;
  }
  return "float32";
}

int64_t convert_linear_weights(torch::nn::Module& module, WeightsDtype dtype) {
  int64_t converted = 0;
  for (const auto& child : module.modules(/*include_self=*/true)) {
    auto* linear = child->as<LinearImpl>();
    if (linear == nullptr) continue;
    linear->convert_weight(dtype);
    ++converted;
  }
  return converted;
}

int64_t linear_weight_bytes(const torch::nn::Module& module) {
  const auto bytes = [](const torch::Tensor& t) { return t.defined() ? static_cast<int64_t>(t.nbytes()) : 0; };
  int64_t total = 0;
  for (const auto& child : module.modules(/*include_self=*/true)) {
    const auto* linear = child->as<LinearImpl>();
    if (linear != nullptr) total += bytes(linear->weight) + bytes(linear->weight_scale) + bytes(linear->bias);
  }
  return total;
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
