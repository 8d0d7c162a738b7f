#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "llm/attention/attention_options.h"
#include "llm/attention/kv_cache.h"
#include "llm/nn/linear.h"

namespace llm {

/// What lesson 3.6.2's multi-head attention and the course's grouped-query attention
/// share: one projection of width d_out split into num_heads heads of width head_dim =
/// d_out / num_heads, keys and values of kv_heads heads (each serving num_heads /
/// kv_heads query heads), causal attention per head, then out_proj.
/// [b, t, d_in] -> [b, t, d_out]. The two layouts below differ only in what their
/// constructors register, in their lesson's order.
struct AttentionHeadsImpl : torch::nn::Module {
  virtual ~AttentionHeadsImpl() = default;
  virtual torch::Tensor forward(const torch::Tensor& x);
  /// The same for x's tokens following those in `cache`, whose keys and values are
  /// appended to it. The cache and x together must fit in context_length.
  virtual torch::Tensor forward_cached(const torch::Tensor& x, LayerKVCache& cache);

  AttentionOptions options;
  /// Key/value heads: the KV cache holds this many per layer.
  int64_t kv_heads;
  /// Sliding-window attention's window (> 0): each query sees itself and the window - 1
  /// positions before it, and the KV cache keeps only the last `window`. 0: all before it.
  int64_t window = 0;
  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  torch::nn::Dropout dropout{nullptr};

  /// When set, forward() keeps its attention weights in recorded_weights: [b,
  /// num_heads, t, t], after the softmax and before dropout. Off, it costs nothing.
  bool record_weights = false;
  torch::Tensor recorded_weights;

 protected:
  AttentionHeadsImpl(const AttentionOptions& options, int64_t kv_heads, const char* module);
  /// W_key's and W_value's width: kv_heads * head_dim.
  int64_t kv_width() const;
  Linear projection(const char* name, int64_t in, int64_t out, bool bias);
  /// [context_length, context_length], on the device of the last input.
  torch::Tensor mask;
  const torch::Tensor& mask_for(const torch::Tensor& x);
  /// Attention over x's t tokens alone: causal, within the window if there is one.
  torch::Tensor attend_all(const torch::Tensor& queries, const torch::Tensor& keys, const torch::Tensor& values,
                           const torch::Tensor& x, bool record);
  const char* module_;
};
/// Any of the layouts, as a model holds it.
TORCH_MODULE(AttentionHeads);

/// Lesson 3.6.2: multi-head attention, every query head with its own keys and values.
/// Its layout is the lesson's: W_query, W_key, W_value, out_proj with a bias, and the
/// mask a buffer. num_kv_groups is not used.
struct MultiHeadAttentionImpl : AttentionHeadsImpl {
  explicit MultiHeadAttentionImpl(const AttentionOptions& options);
};
TORCH_MODULE(MultiHeadAttention);

/// Grouped-query attention as the course builds it (ch04/04_gqa): the query heads
/// share num_kv_groups key/value heads (0: one per query head), so W_key and W_value
/// project to num_kv_groups * head_dim only; one group is multi-query attention. Its
/// layout is the course's: W_key, W_value, W_query, out_proj without a bias, and no
/// mask in the state dict.
struct GroupedQueryAttentionImpl : AttentionHeadsImpl {
  explicit GroupedQueryAttentionImpl(const AttentionOptions& options);
};
TORCH_MODULE(GroupedQueryAttention);

/// Sliding-window attention as the course builds it (ch04/06_swa, gpt_with_kv_swa.py's
/// MultiHeadAttentionWithSWA): multi-head attention in which each query sees only the
/// last `window` positions, itself included, so that a KV cache is a rolling window
/// of that many positions. Window 0 is a regular layer (the course's None). Its
/// layout is the course's: W_query, W_key, W_value, out_proj with a bias, and no mask
/// in the state dict.
struct SlidingWindowAttentionImpl : AttentionHeadsImpl {
  SlidingWindowAttentionImpl(const AttentionOptions& options, int64_t window);
};
TORCH_MODULE(SlidingWindowAttention);

/// Multi-head latent attention as the course builds it (ch04/05_mla,
/// gpt_with_kv_mla.py): the keys and values of every head are up-projected (W_UK,
/// W_UV) from one shared latent vector per token (W_DKV, latent_dim wide), so a KV
/// cache keeps the latent alone: latent_dim numbers per token and layer instead of
/// 2 * d_out. Its layout is the course's: W_query, W_DKV, W_UK, W_UV, out_proj with a
/// bias, and no mask in the state dict. W_key and W_value stay empty.
struct MultiHeadLatentAttentionImpl : AttentionHeadsImpl {
  /// latent_dim 0 is the course's default, max(16, d_out / 8).
  MultiHeadLatentAttentionImpl(const AttentionOptions& options, int64_t latent_dim);
  torch::Tensor forward(const torch::Tensor& x) override;
  /// Caches the new tokens' latents (cache.latent), and up-projects all of them.
  torch::Tensor forward_cached(const torch::Tensor& x, LayerKVCache& cache) override;

  int64_t latent_dim;
  Linear W_DKV{nullptr}, W_UK{nullptr}, W_UV{nullptr};

 private:
  /// Attention of x's queries over the keys and values of `latent` ([b, t_k, latent_dim]).
  torch::Tensor attend(const torch::Tensor& x, const torch::Tensor& latent, bool one_row);
};
TORCH_MODULE(MultiHeadLatentAttention);

}  // namespace llm
