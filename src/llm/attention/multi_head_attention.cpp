#include "llm/attention/multi_head_attention.h"

#include "llm/attention/scaled_dot_product.h"
#include "llm/util/linear.h"

namespace llm {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(const AttentionOptions& o) : options(o) {
  check_attention_options(o, "MultiHeadAttention", /*heads=*/true, /*groups=*/false);
  const auto qkv = torch::nn::LinearOptions(o.d_in(), o.d_out()).bias(o.qkv_bias());
  W_query = register_module("W_query", torch::nn::Linear(qkv));
  W_key = register_module("W_key", torch::nn::Linear(qkv));
  W_value = register_module("W_value", torch::nn::Linear(qkv));
  out_proj = register_module("out_proj", torch::nn::Linear(o.d_out(), o.d_out()));
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
  mask = register_buffer("mask", causal_mask(o.context_length()));
}

torch::Tensor MultiHeadAttentionImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), "MultiHeadAttention");
  const int64_t h = options.num_heads();
  const auto keys = split_heads(W_key(x), h);       // [b, h, t, hd]
  const auto queries = split_heads(W_query(x), h);  // [b, h, t, hd]
  const auto values = split_heads(W_value(x), h);   // [b, h, t, hd]
  return out_proj(merge_heads(causal_attention(queries, keys, values, mask, dropout)));  // [b, t, d_out]
}

torch::Tensor MultiHeadAttentionImpl::forward_cached(const torch::Tensor& x, LayerKVCache& cache) {
  check_cached_input(x, cache, options.d_in(), options.context_length(), "MultiHeadAttention");
  const int64_t h = options.num_heads();
  // linear_or_matvec(): one token at a time is a matrix-vector product.
  const auto queries = split_heads(linear_or_matvec(W_query, x), h);  // [b, h, t, hd]
  const auto [keys, values] =
      cache.append(split_heads(linear_or_matvec(W_key, x), h), split_heads(linear_or_matvec(W_value, x), h));  // [b, h, past + t, hd]
  return linear_or_matvec(out_proj, merge_heads(causal_attention(queries, keys, values, mask, dropout)));  // [b, t, d_out]
}

GroupedQueryAttentionImpl::GroupedQueryAttentionImpl(const AttentionOptions& o) : options(o) {
  check_attention_options(o, "GroupedQueryAttention", /*heads=*/true, /*groups=*/true);
  const int64_t kv_width = o.num_kv_groups() * (o.d_out() / o.num_heads());
  W_query = register_module("W_query", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), o.d_out()).bias(o.qkv_bias())));
  W_key = register_module("W_key", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), kv_width).bias(o.qkv_bias())));
  W_value = register_module("W_value", torch::nn::Linear(torch::nn::LinearOptions(o.d_in(), kv_width).bias(o.qkv_bias())));
  out_proj = register_module("out_proj", torch::nn::Linear(o.d_out(), o.d_out()));
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
  mask = register_buffer("mask", causal_mask(o.context_length()));
}

torch::Tensor GroupedQueryAttentionImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), "GroupedQueryAttention");
  const int64_t h = options.num_heads(), g = options.num_kv_groups();
  // Each key/value group serves h / g consecutive query heads.
  const auto keys = split_heads(W_key(x), g).repeat_interleave(h / g, /*dim=*/1);    // [b, h, t, hd]
  const auto queries = split_heads(W_query(x), h);                                    // [b, h, t, hd]
  const auto values = split_heads(W_value(x), g).repeat_interleave(h / g, /*dim=*/1);  // [b, h, t, hd]
  return out_proj(merge_heads(causal_attention(queries, keys, values, mask, dropout)));  // [b, t, d_out]
}

torch::Tensor GroupedQueryAttentionImpl::forward_cached(const torch::Tensor& x, LayerKVCache& cache) {
  check_cached_input(x, cache, options.d_in(), options.context_length(), "GroupedQueryAttention");
  const int64_t h = options.num_heads(), g = options.num_kv_groups();
  const auto queries = split_heads(linear_or_matvec(W_query, x), h);  // [b, h, t, hd]
  const auto [keys, values] =
      cache.append(split_heads(linear_or_matvec(W_key, x), g), split_heads(linear_or_matvec(W_value, x), g));  // [b, g, past + t, hd]
  return linear_or_matvec(out_proj, merge_heads(causal_attention(queries, keys.repeat_interleave(h / g, /*dim=*/1),
                                                       values.repeat_interleave(h / g, /*dim=*/1), mask, dropout)));
}

}  // namespace llm
