#include "llm/attention/self_attention.h"

#include <cmath>

namespace llm {
namespace {

torch::Tensor attend(const torch::Tensor& queries, const torch::Tensor& keys, const torch::Tensor& values) {
  const auto scores = torch::matmul(queries, keys.t());  // [t, t]
  const auto weights = torch::softmax(scores / std::sqrt(static_cast<double>(keys.size(-1))), /*dim=*/-1);
  return torch::matmul(weights, values);  // [t, d_out]
}

}  // namespace

SelfAttentionV1Impl::SelfAttentionV1Impl(const AttentionOptions& o) {
  check_attention_options(o, "SelfAttentionV1", /*heads=*/false, /*groups=*/false);
  W_query = register_parameter("W_query", torch::rand({o.d_in(), o.d_out()}));
  W_key = register_parameter("W_key", torch::rand({o.d_in(), o.d_out()}));
  W_value = register_parameter("W_value", torch::rand({o.d_in(), o.d_out()}));
}

torch::Tensor SelfAttentionV1Impl::forward(const torch::Tensor& x) {
  return attend(torch::matmul(x, W_query), torch::matmul(x, W_key), torch::matmul(x, W_value));
}

SelfAttentionV2Impl::SelfAttentionV2Impl(const AttentionOptions& o) {
  check_attention_options(o, "SelfAttentionV2", /*heads=*/false, /*groups=*/false);
  const auto linear = torch::nn::LinearOptions(o.d_in(), o.d_out()).bias(o.qkv_bias());
  W_query = register_module("W_query", torch::nn::Linear(linear));
  W_key = register_module("W_key", torch::nn::Linear(linear));
  W_value = register_module("W_value", torch::nn::Linear(linear));
}

torch::Tensor SelfAttentionV2Impl::forward(const torch::Tensor& x) { return attend(W_query(x), W_key(x), W_value(x)); }

}  // namespace llm
