#include "llm/attention/multi_head_attention.h"

#include "llm/attention/scaled_dot_product.h"
#include "llm/util/linear.h"

namespace llm {
namespace {

// Keys or values of g heads [b, g, t, hd] for h query heads: each of the g heads
// serves h / g consecutive query heads. Multi-head attention (g == h) is unchanged.
torch::Tensor for_query_heads(const torch::Tensor& kv, int64_t h) {
  const int64_t g = kv.size(1);
  return g == h ? kv : kv.repeat_interleave(h / g, /*dim=*/1);  // [b, h, t, hd]
}

}  // namespace

MultiHeadAttentionImpl::MultiHeadAttentionImpl(const AttentionOptions& o) : options(o) {
  check_attention_options(o, "MultiHeadAttention", /*heads=*/true, /*groups=*/true);
  const int64_t kv_width = o.kv_heads() * (o.d_out() / o.num_heads());
  W_query = register_module("W_query", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), o.d_out()).bias(o.qkv_bias())));
  W_key = register_module("W_key", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), kv_width).bias(o.qkv_bias())));
  W_value = register_module("W_value", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), kv_width).bias(o.qkv_bias())));
  out_proj = register_module("out_proj", torch::nn::Linear(o.d_out(), o.d_out()));
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
  mask = register_buffer("mask", causal_mask(o.context_length()));
}

torch::Tensor MultiHeadAttentionImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), "MultiHeadAttention");
  const int64_t h = options.num_heads(), g = options.kv_heads();
  const auto keys = for_query_heads(split_heads(linear(W_key, x), g), h);      // [b, h, t, hd]
  const auto queries = split_heads(linear(W_query, x), h);                     // [b, h, t, hd]
  const auto values = for_query_heads(split_heads(linear(W_value, x), g), h);  // [b, h, t, hd]
  return linear(out_proj, merge_heads(causal_attention(queries, keys, values, mask, dropout)));  // [b, t, d_out]
}

torch::Tensor MultiHeadAttentionImpl::forward_cached(const torch::Tensor& x, LayerKVCache& cache) {
  check_cached_input(x, cache, options.d_in(), options.context_length(), "MultiHeadAttention");
  const int64_t h = options.num_heads(), g = options.kv_heads();
  // linear_or_matvec(): one token at a time is a matrix-vector product.
  const auto queries = split_heads(linear_or_matvec(W_query, x), h);  // [b, h, t, hd]
  const auto [keys, values] = cache.append(split_heads(linear_or_matvec(W_key, x), g),
                                           split_heads(linear_or_matvec(W_value, x), g));  // [b, g, past + t, hd]
  const auto context = causal_attention(queries, for_query_heads(keys, h), for_query_heads(values, h), mask, dropout);
  return linear_or_matvec(out_proj, merge_heads(context));  // [b, t, d_out]
}

}  // namespace llm
