#include "llm/attention/rope_attention.h"

#include <fmt/format.h>

#include <cmath>

#include "llm/attention/scaled_dot_product.h"
#include "llm/util/error.h"
#include "llm/util/show.h"

namespace llm {
namespace {

void check_rope_attention_options(const RopeAttentionOptions& o) {
  if (o.d_in <= 0 || o.num_heads <= 0 || o.num_kv_groups <= 0) {
    throw Error(fmt::format("RopeAttention: d_in, num_heads and num_kv_groups must be positive, got {}, {} and {}",
                            o.d_in, o.num_heads, o.num_kv_groups));
  }
  if (o.out_features < 0) throw Error(fmt::format("RopeAttention: out_features must not be negative, got {}", o.out_features));
  if (o.num_heads % o.num_kv_groups != 0) {
    throw Error(fmt::format("RopeAttention: num_kv_groups ({}) must divide num_heads ({})", o.num_kv_groups,
                            o.num_heads));
  }
  if (o.head_dim == 0 && o.d_in % o.num_heads != 0) {
    throw Error(fmt::format("RopeAttention: num_heads ({}) must divide d_in ({}) when head_dim is not given",
                            o.num_heads, o.d_in));
  }
  const int64_t head_dim = o.resolved_head_dim();
  if (head_dim <= 0 || head_dim % 2 != 0) {
    throw Error(fmt::format("RopeAttention: head_dim must be positive and even (RoPE rotates pairs), got {}", head_dim));
  }
}

}  // namespace

RopeAttentionImpl::RopeAttentionImpl(const RopeAttentionOptions& o)
    : torch::nn::Module("GroupedQueryAttention"), options(o) {
  check_rope_attention_options(o);
  const int64_t head_dim = o.resolved_head_dim(), d_out = o.num_heads * head_dim, kv_width = o.num_kv_groups * head_dim;
  if (o.keys_first) {
    W_key = register_module("W_key", Linear(o.d_in, kv_width, /*bias=*/false, o.dtype));
    W_value = register_module("W_value", Linear(o.d_in, kv_width, /*bias=*/false, o.dtype));
    W_query = register_module("W_query", Linear(o.d_in, d_out, /*bias=*/false, o.dtype));
  } else {
    W_query = register_module("W_query", Linear(o.d_in, d_out, /*bias=*/false, o.dtype));
    W_key = register_module("W_key", Linear(o.d_in, kv_width, /*bias=*/false, o.dtype));
    W_value = register_module("W_value", Linear(o.d_in, kv_width, /*bias=*/false, o.dtype));
  }
  out_proj = register_module("out_proj", Linear(d_out, o.out_features > 0 ? o.out_features : o.d_in, /*bias=*/false,
                                                o.dtype));
  if (o.qk_norm) {
    q_norm = register_module("q_norm", RMSNorm(head_dim, 1e-6, *o.qk_norm));
    k_norm = register_module("k_norm", RMSNorm(head_dim, 1e-6, *o.qk_norm));
  }
}

torch::Tensor RopeAttentionImpl::forward(const torch::Tensor& x, const RopeTables& rope, int64_t window) {
  LayerKVCache none;
  return forward_cached(x, rope, none, window);
}

torch::Tensor RopeAttentionImpl::forward_cached(const torch::Tensor& x, const RopeTables& rope, LayerKVCache& cache,
                                                int64_t window) {
  const int64_t past = cache.length(), t = x.size(1);
  if (x.dim() != 3 || x.size(2) != options.d_in || past + t > rope.cos.size(0)) {
    throw Error(fmt::format("RopeAttention: expected [batch, tokens, {}] with at most {} tokens in all, got {} after {}",
                            options.d_in, rope.cos.size(0), shape(x), past));
  }
  auto queries = split_heads(W_query->forward_matvec(x), options.num_heads);  // [b, h, t, hd]
  auto keys = split_heads(W_key->forward_matvec(x), options.num_kv_groups);  // [b, g, t, hd]
  const auto values = split_heads(W_value->forward_matvec(x), options.num_kv_groups);
  if (options.qk_norm) {
    queries = q_norm(queries);
    keys = k_norm(keys);
  }
  queries = apply_rope(queries, rope, past);
  keys = apply_rope(keys, rope, past);
  const auto [all_keys, all_values] = cache.append(keys, values);  // [b, g, past + t, hd]
  // [b, t, out_features or d_in]
  return out_proj->forward_matvec(merge_heads(attend(queries, all_keys, all_values, window)));
}

torch::Tensor RopeAttentionImpl::attend(const torch::Tensor& queries, const torch::Tensor& keys,
                                        const torch::Tensor& values, int64_t window) {
  const int64_t group_size = options.num_heads / options.num_kv_groups;
  const auto k = keys.repeat_interleave(group_size, /*dim=*/1);    // [b, h, t_k, hd]
  const auto v = values.repeat_interleave(group_size, /*dim=*/1);  // [b, h, t_k, hd]
  auto scores = options.query_pre_attn_scalar
                    ? torch::matmul(queries * std::pow(*options.query_pre_attn_scalar, -0.5), k.transpose(2, 3))
                    : torch::matmul(queries, k.transpose(2, 3));  // [b, h, t_q, t_k]
  scores = scores.masked_fill(attention_mask(queries.size(2), k.size(2), window, scores.device()), -INFINITY);
  if (!options.query_pre_attn_scalar) scores = scores / std::sqrt(static_cast<double>(options.resolved_head_dim()));
  const auto weights = torch::softmax(scores, -1);
  if (record_weights) recorded_weights = weights.detach();
  return torch::matmul(weights, v);  // [b, h, t_q, hd]
}

}  // namespace llm
