#pragma once

#include <torch/torch.h>

#include "llm/attention/kv_cache.h"

namespace llm {

/// The lesson's upper-triangular mask, 1 above the diagonal: position i may not see
/// j > i. A float buffer named "mask", as PyTorch's register_buffer keeps it.
torch::Tensor causal_mask(int64_t context_length);

/// Causal scaled dot-product attention with dropout on the weights:
/// softmax(q k^T / sqrt(d_k), future masked to -inf) -> dropout -> @ v.
/// q is [..., t_q, d_k] and k, v are [..., t_k, d_k]: the queries are the last t_q of
/// t_k positions (t_q < t_k when earlier keys come from a KV cache). `mask` is a
/// causal_mask at least t_k x t_k. Returns the context vectors [..., t_q, d_v];
/// `weights_out`, when given, receives the attention weights [..., t_q, t_k] after the
/// softmax and before dropout (the lesson's attn_weights).
torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& mask, torch::nn::Dropout& dropout,
                               torch::Tensor* weights_out = nullptr);

/// Grouped-query attention without copying keys and values for each query head (the
/// course's repeat_interleave): each of the g key/value heads serves h / g consecutive
/// query heads, whose queries are stacked as the rows of one product with the group's
/// keys. grouped_scores: q [b, h, t_q, d] against k [b, g, t_k, d], q k^T as [b, h, t_q,
/// t_k]; grouped_context: those weights times v [b, g, t_k, d_v], [b, h, t_q, d_v]. With
/// g == h, or tensors of other ranks, the plain products.
torch::Tensor grouped_scores(const torch::Tensor& q, const torch::Tensor& k);
torch::Tensor grouped_context(const torch::Tensor& weights, const torch::Tensor& v);

/// Scaled dot-product attention with dropout on the weights: softmax(q k^T / sqrt(d_k),
/// masked to -inf) -> dropout -> @ v. `masked` is [t_q, t_k] bool, true where a query
/// may not see a key (attention_mask), or undefined where every query sees every key.
/// k and v may have fewer heads than q (grouped_scores). Returns and records what
/// causal_attention does.
torch::Tensor masked_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& masked, torch::nn::Dropout& dropout,
                               torch::Tensor* weights_out = nullptr);

/// Which keys each query may not see, [t_q, t_k] bool, true where masked: the t_q
/// queries are the last of t_k positions, and query position i sees key j when
/// j <= i and, with a window (> 0), i - j < window (the Gemma 3 notebook's mask_local,
/// the course's sliding-window attention).
torch::Tensor attention_mask(int64_t t_q, int64_t t_k, int64_t window, torch::Device device);

/// [b, t, n * hd] -> [b, n, t, hd]: one slice of the projection per head.
torch::Tensor split_heads(const torch::Tensor& x, int64_t n);

/// [b, n, t, hd] -> [b, t, n * hd]: the heads side by side again.
torch::Tensor merge_heads(const torch::Tensor& x);

/// Throws llm::Error unless x is [batch, tokens, d_in] with tokens <= context_length.
void check_attention_input(const torch::Tensor& x, int64_t d_in, int64_t context_length, const char* module);

/// check_attention_input for x's tokens after the `cache`'s: together they must fit
/// in context_length.
void check_cached_input(const torch::Tensor& x, const LayerKVCache& cache, int64_t d_in, int64_t context_length,
                        const char* module);

}  // namespace llm
