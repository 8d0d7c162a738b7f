#pragma once

#include <torch/torch.h>

#include "llm/attention/kv_cache.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/model/gpt_config.h"
#include "llm/model/layers.h"
#include "llm/util/linear.h"

namespace llm {

/// Lesson 4.5: a pre-norm transformer block. Attention, then feed-forward, each
/// after a LayerNorm, each with dropout on its output and a shortcut around it.
/// [b, t, emb_dim] -> [b, t, emb_dim].
struct TransformerBlockImpl : torch::nn::Module {
  explicit TransformerBlockImpl(const GPTConfig& config);
  torch::Tensor forward(torch::Tensor x);
  /// The same for x's tokens following those whose keys and values `cache` holds.
  torch::Tensor forward_cached(torch::Tensor x, LayerKVCache& cache);

  MultiHeadAttention att{nullptr};  // grouped-query when the config says "gqa"
  FeedForward ff{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
  torch::nn::Dropout drop_shortcut{nullptr};
};
TORCH_MODULE(TransformerBlock);

/// Lesson 4.6: the GPT. Token ids [b, t] -> logits [b, t, vocab_size]. Submodules
/// carry the lesson's names, so the state dict is the PyTorch reference's. The config
/// is taken as valid: it was validated where it was read (load_gpt_config).
struct GPTModelImpl : torch::nn::Module {
  explicit GPTModelImpl(const GPTConfig& config);
  torch::Tensor forward(const torch::Tensor& in_idx);
  /// Everything but out_head: the final norm's output [b, t, emb_dim], for a loss
  /// that applies out_head itself (linear_cross_entropy in train/loss.h).
  torch::Tensor forward_hidden(const torch::Tensor& in_idx);
  /// The logits of in_idx's tokens, placed after the cache.length() tokens whose keys
  /// and values `cache` holds, which it then also holds: a prompt first, then one
  /// token at a time. Together they must fit in context_length.
  torch::Tensor forward_cached(const torch::Tensor& in_idx, KVCache& cache);
  /// Where the weights live (all on one device): where inputs must go.
  torch::Device device() const { return out_head->weight.device(); }

  GPTConfig config;
  torch::nn::Embedding tok_emb{nullptr}, pos_emb{nullptr};
  torch::nn::Dropout drop_emb{nullptr};
  torch::nn::Sequential trf_blocks{nullptr};
  LayerNorm final_norm{nullptr};
  Linear out_head{nullptr};
};
TORCH_MODULE(GPTModel);

/// Lesson 4.1: the placeholder GPT, whose blocks and norm pass their input through.
struct DummyGPTModelImpl : torch::nn::Module {
  explicit DummyGPTModelImpl(const GPTConfig& config);
  torch::Tensor forward(const torch::Tensor& in_idx);

  torch::nn::Embedding tok_emb{nullptr}, pos_emb{nullptr};
  torch::nn::Dropout drop_emb{nullptr};
  Linear out_head{nullptr};
};
TORCH_MODULE(DummyGPTModel);

}  // namespace llm
