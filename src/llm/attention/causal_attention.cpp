#include "llm/attention/causal_attention.h"

#include <fmt/format.h>

#include "llm/attention/scaled_dot_product.h"
#include "llm/util/error.h"

namespace llm {

CausalAttentionImpl::CausalAttentionImpl(const AttentionOptions& o) : options(o) {
  check_attention_options(o, "CausalAttention", /*heads=*/false, /*groups=*/false);
  const auto linear = torch::nn::LinearOptions(o.d_in(), o.d_out()).bias(o.qkv_bias());
  W_query = register_module("W_query", torch::nn::Linear(linear));
  W_key = register_module("W_key", torch::nn::Linear(linear));
  W_value = register_module("W_value", torch::nn::Linear(linear));
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
  mask = register_buffer("mask", causal_mask(o.context_length()));
}

torch::Tensor CausalAttentionImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), "CausalAttention");
  // Same order of calls as the lesson, so dropout draws the same numbers.
  const auto keys = W_key(x);       // [b, t, d_out]
  const auto queries = W_query(x);  // [b, t, d_out]
  const auto values = W_value(x);   // [b, t, d_out]
  return causal_attention(queries, keys, values, mask, dropout, record_weights ? &recorded_weights : nullptr);
}

MultiAttentionStackingImpl::MultiAttentionStackingImpl(const AttentionOptions& o) {
  // Each head has width d_out, so num_heads need not divide it.
  check_attention_options(o, "MultiAttentionStacking", /*heads=*/false, /*groups=*/false);
  if (o.num_heads() <= 0) {
    throw Error(fmt::format("MultiAttentionStacking: num_heads must be positive, got {}", o.num_heads()));
  }
  heads = register_module("heads", ModuleListOf<CausalAttention>());
  for (int64_t h = 0; h < o.num_heads(); ++h) heads->push_back(CausalAttention(o));
}

torch::Tensor MultiAttentionStackingImpl::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> outputs;
  for (auto& head : *heads) outputs.push_back(head(x));  // [b, t, d_out]
  return torch::cat(outputs, /*dim=*/-1);  // [b, t, num_heads * d_out]
}

}  // namespace llm
