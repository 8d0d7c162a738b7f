#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>

#include "llm/attention/kv_cache.h"
#include "llm/attention/scaled_dot_product.h"
#include "llm/nn/linear.h"
#include "llm/nn/rms_norm.h"
#include "llm/nn/rope.h"

namespace llm {

/// What a RopeAttention layer is: the course's GroupedQueryAttention of Llama 3
/// (llama3.py), Qwen3 (qwen3.py) and Gemma 3 (the notebook).
struct RopeAttentionOptions {
  int64_t d_in = 0;
  int64_t num_heads = 0;
  int64_t num_kv_groups = 0;  // key/value heads; each serves num_heads / num_kv_groups query heads
  int64_t head_dim = 0;       // 0: d_in / num_heads (Llama); Qwen3 and Gemma 3 give their own
  /// QK-norm (Qwen3, Gemma 3): an RMSNorm of head_dim on every query and key head,
  /// before RoPE, in the model's style.
  std::optional<RMSNormStyle> qk_norm;
  /// Gemma 3: the queries are scaled by query_pre_attn_scalar^-0.5 before q k^T;
  /// otherwise the scores are divided by sqrt(head_dim) (Llama 3, Qwen3).
  std::optional<double> query_pre_attn_scalar;
  /// Llama 3's class registers W_key and W_value before W_query (as chapter 4's GQA
  /// bonus does); Qwen3's and Gemma 3's register W_query first. The order decides
  /// which initial weights the seed gives each.
  bool keys_first = false;
  /// The projections' dtype (the course's default is bfloat16); QK-norm keeps float32.
  torch::Dtype dtype = torch::kFloat;
  /// out_proj's width: 0 maps back to d_in, as every model does. Llama 3's class maps
  /// its d_out (num_heads * head_dim) to d_out, which differs from d_in only in the
  /// course's test of grouped-query attention (d_in 32, d_out 64).
  int64_t out_features = 0;

  int64_t resolved_head_dim() const { return head_dim > 0 ? head_dim : d_in / num_heads; }
};

/// Grouped-query attention with rotary position embeddings: queries and keys rotated
/// by their positions (apply_rope), keys and values of num_kv_groups heads shared by
/// the query heads, a causal mask, and optionally a sliding window (Gemma 3's local
/// layers: a token sees itself and the window - 1 tokens before it). No biases, no
/// dropout. [b, t, d_in] -> [b, t, out_features or d_in].
struct RopeAttentionImpl : torch::nn::Module {
  explicit RopeAttentionImpl(const RopeAttentionOptions& options);
  /// x's tokens at positions 0..t-1; `window` 0 attends to every earlier token.
  torch::Tensor forward(const torch::Tensor& x, const RopeTables& rope, int64_t window = 0);
  /// The same for x's tokens following those whose keys and values `cache` holds
  /// (rotated already: the cache keeps keys after RoPE).
  torch::Tensor forward_cached(const torch::Tensor& x, const RopeTables& rope, LayerKVCache& cache, int64_t window = 0);

  RopeAttentionOptions options;
  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  RMSNorm q_norm{nullptr}, k_norm{nullptr};  // with qk_norm only
  /// When set, forward keeps its attention weights [b, num_heads, t, t] here, after
  /// the softmax (for the attention-head explorer).
  bool record_weights = false;
  torch::Tensor recorded_weights;

 private:
  torch::Tensor attend(const torch::Tensor& queries, const torch::Tensor& keys, const torch::Tensor& values,
                       int64_t window);
};
TORCH_MODULE(RopeAttention);

}  // namespace llm
