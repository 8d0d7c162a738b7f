#include "llm/attention/multi_head_attention.h"

#include <fmt/format.h>

#include "llm/attention/scaled_dot_product.h"
#include "llm/util/error.h"

namespace llm {
namespace {

// Keys or values of g heads [b, g, t, hd] for h query heads: each of the g heads
// serves h / g consecutive query heads. Multi-head attention (g == h) is unchanged.
torch::Tensor for_query_heads(const torch::Tensor& kv, int64_t h) {
  const int64_t g = kv.size(1);
  return g == h ? kv : kv.repeat_interleave(h / g, /*dim=*/1);  // [b, h, t, hd]
}

// The mask of t_q queries after cached positions, over the t_k keys they attend to:
// none for one query, which sees every key the cache gives it (a rolling cache gives
// only the window's).
torch::Tensor cached_mask(int64_t t_q, int64_t t_k, int64_t window, torch::Device device) {
  return t_q == 1 ? torch::Tensor() : attention_mask(t_q, t_k, window, device);
}

}  // namespace

AttentionHeadsImpl::AttentionHeadsImpl(const AttentionOptions& o, int64_t kv, const char* module)
    : options(o), kv_heads(kv), module_(module) {}

int64_t AttentionHeadsImpl::kv_width() const { return kv_heads * (options.d_out() / options.num_heads()); }

Linear AttentionHeadsImpl::projection(const char* name, int64_t in, int64_t out, bool bias) {
  return register_module(name, Linear(in, out, bias));
}

// Each layout is its lesson's, down to the order in which the projections draw their
// initial weights, so that the same seed gives the lesson's weights.
MultiHeadAttentionImpl::MultiHeadAttentionImpl(const AttentionOptions& o)
    : AttentionHeadsImpl(o, o.num_heads(), "MultiHeadAttention") {
  check_attention_options(o, "MultiHeadAttention", /*heads=*/true, /*groups=*/false);
  if (o.num_kv_groups() != 0) {
    throw Error("MultiHeadAttention: num_kv_groups is grouped-query attention's (GroupedQueryAttention)");
  }
  W_query = projection("W_query", o.d_in(), o.d_out(), o.qkv_bias());
  W_key = projection("W_key", o.d_in(), kv_width(), o.qkv_bias());
  W_value = projection("W_value", o.d_in(), kv_width(), o.qkv_bias());
  out_proj = projection("out_proj", o.d_out(), o.d_out(), /*bias=*/true);
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
  mask = register_buffer("mask", causal_mask(o.context_length()));
}

GroupedQueryAttentionImpl::GroupedQueryAttentionImpl(const AttentionOptions& o)
    : AttentionHeadsImpl(o, o.kv_heads(), "GroupedQueryAttention") {
  check_attention_options(o, "GroupedQueryAttention", /*heads=*/true, /*groups=*/true);
  W_key = projection("W_key", o.d_in(), kv_width(), o.qkv_bias());
  W_value = projection("W_value", o.d_in(), kv_width(), o.qkv_bias());
  W_query = projection("W_query", o.d_in(), o.d_out(), o.qkv_bias());
  out_proj = projection("out_proj", o.d_out(), o.d_out(), /*bias=*/false);
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
}

SlidingWindowAttentionImpl::SlidingWindowAttentionImpl(const AttentionOptions& o, int64_t w)
    : AttentionHeadsImpl(o, o.num_heads(), "SlidingWindowAttention") {
  check_attention_options(o, "SlidingWindowAttention", /*heads=*/true, /*groups=*/false);
  if (w < 0) throw Error(fmt::format("SlidingWindowAttention: the window must be positive (0: none), got {}", w));
  window = w;
  W_query = projection("W_query", o.d_in(), o.d_out(), o.qkv_bias());
  W_key = projection("W_key", o.d_in(), o.d_out(), o.qkv_bias());
  W_value = projection("W_value", o.d_in(), o.d_out(), o.qkv_bias());
  out_proj = projection("out_proj", o.d_out(), o.d_out(), /*bias=*/true);
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
}

const torch::Tensor& AttentionHeadsImpl::mask_for(const torch::Tensor& x) {
  if (!mask.defined() || mask.device() != x.device()) mask = causal_mask(options.context_length()).to(x.device());
  return mask;
}

torch::Tensor AttentionHeadsImpl::attend_all(const torch::Tensor& queries, const torch::Tensor& keys,
                                             const torch::Tensor& values, const torch::Tensor& x, bool record) {
  auto* weights = record ? &recorded_weights : nullptr;
  if (window == 0) return causal_attention(queries, keys, values, mask_for(x), dropout, weights);
  const int64_t t = x.size(1);
  return masked_attention(queries, keys, values, attention_mask(t, t, window, x.device()), dropout, weights);
}

torch::Tensor AttentionHeadsImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), module_);
  const int64_t h = options.num_heads(), g = kv_heads;
  const auto keys = for_query_heads(split_heads(W_key(x), g), h);      // [b, h, t, hd]
  const auto queries = split_heads(W_query(x), h);                     // [b, h, t, hd]
  const auto values = for_query_heads(split_heads(W_value(x), g), h);  // [b, h, t, hd]
  return out_proj(merge_heads(attend_all(queries, keys, values, x, record_weights)));  // [b, t, d_out]
}

torch::Tensor AttentionHeadsImpl::forward_cached(const torch::Tensor& x, LayerKVCache& cache) {
  check_cached_input(x, cache, options.d_in(), options.context_length(), module_);
  const int64_t h = options.num_heads(), g = kv_heads;
  // forward_matvec(): one token at a time is a matrix-vector product.
  const auto queries = split_heads(W_query->forward_matvec(x), h);  // [b, h, t, hd]
  const auto [keys, values] = cache.append(split_heads(W_key->forward_matvec(x), g),
                                           split_heads(W_value->forward_matvec(x), g), window);  // [b, g, t_k, hd]
  // Each group's keys serve its query heads as they are: nothing is copied per head.
  const auto context =
      masked_attention(queries, keys, values, cached_mask(queries.size(2), keys.size(2), window, x.device()), dropout);
  return out_proj->forward_matvec(merge_heads(context));  // [b, t, d_out]
}

MultiHeadLatentAttentionImpl::MultiHeadLatentAttentionImpl(const AttentionOptions& o, int64_t latent)
    : AttentionHeadsImpl(o, o.num_heads(), "MultiHeadLatentAttention"),
      latent_dim(latent > 0 ? latent : std::max<int64_t>(16, o.d_out() / 8)) {
  check_attention_options(o, "MultiHeadLatentAttention", /*heads=*/true, /*groups=*/false);
  W_query = projection("W_query", o.d_in(), o.d_out(), o.qkv_bias());
  W_DKV = projection("W_DKV", o.d_in(), latent_dim, o.qkv_bias());  // down to the latent
  W_UK = projection("W_UK", latent_dim, o.d_out(), o.qkv_bias());   // latent -> every head's keys
  W_UV = projection("W_UV", latent_dim, o.d_out(), o.qkv_bias());   // latent -> every head's values
  out_proj = projection("out_proj", o.d_out(), o.d_out(), /*bias=*/true);
  dropout = register_module("dropout", torch::nn::Dropout(o.dropout()));
}

torch::Tensor MultiHeadLatentAttentionImpl::attend(const torch::Tensor& x, const torch::Tensor& latent, bool one_row) {
  const int64_t h = options.num_heads();
  const auto project = [&](Linear& layer, const torch::Tensor& input) {
    return one_row ? layer->forward_matvec(input) : layer(input);
  };
  const auto queries = split_heads(project(W_query, x), h);  // [b, h, t, hd]
  const auto keys = split_heads(W_UK(latent), h);            // [b, h, t_k, hd]
  const auto values = split_heads(W_UV(latent), h);          // [b, h, t_k, hd]
  const auto context = one_row ? masked_attention(queries, keys, values,
                                                  cached_mask(queries.size(2), keys.size(2), 0, x.device()), dropout)
                               : attend_all(queries, keys, values, x, record_weights);
  return project(out_proj, merge_heads(context));  // [b, t, d_out]
}

torch::Tensor MultiHeadLatentAttentionImpl::forward(const torch::Tensor& x) {
  check_attention_input(x, options.d_in(), options.context_length(), module_);
  return attend(x, W_DKV(x), /*one_row=*/false);
}

torch::Tensor MultiHeadLatentAttentionImpl::forward_cached(const torch::Tensor& x, LayerKVCache& cache) {
  check_cached_input(x, cache, options.d_in(), options.context_length(), module_);
  return attend(x, cache.append_latent(W_DKV->forward_matvec(x)), /*one_row=*/true);
}

}  // namespace llm
