#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llm/attention/kv_cache.h"
#include "llm/attention/rope_attention.h"
#include "llm/model/language_model.h"
#include "llm/nn/linear.h"
#include "llm/nn/module_list.h"
#include "llm/nn/rms_norm.h"
#include "llm/nn/rope.h"

namespace llm {

/// How the course's Llama 3.2, Qwen3 and Gemma 3 normalise: the RMSNorm's style, eps
/// and the weight's dtype.
struct NormOptions {
  RMSNormStyle style = RMSNormStyle::kQwen3;
  double eps = 1e-6;
  torch::Dtype dtype = torch::kFloat;
};

/// One transformer block of these models.
struct DecoderBlockOptions {
  RopeAttentionOptions attention;
  NormOptions norm;
  /// The block's RMSNorms by their names in the reference, in its registration order:
  /// before attention, after it, before the feed-forward and after it. An empty name
  /// is a norm the family does not have: Llama 3.2 and Qwen3 have norm1 and norm2;
  /// Gemma 3 all four (input_layernorm, post_attention_layernorm, ...).
  std::array<std::string, 4> norms;
  /// Which of the model's RoPE tables the block's attention rotates by (Gemma 3: its
  /// local base on sliding-window layers), and its sliding window (0: none).
  size_t rope = 0;
  int64_t window = 0;
};

/// x + post_att(att(pre_att(x))), then x + post_ff(ff(pre_ff(x))); a post-norm only
/// where the family has one. [b, t, emb_dim] -> [b, t, emb_dim].
struct DecoderBlockImpl : torch::nn::Module {
  /// `make_ff` builds the feed-forward (GatedFeedForward or MoEFeedForward), registered
  /// as "ff": called after the attention is built, as the reference draws them.
  DecoderBlockImpl(const DecoderBlockOptions& options, const std::function<torch::nn::AnyModule()>& make_ff);
  torch::Tensor forward(const torch::Tensor& x, const std::vector<RopeTables>& ropes);
  torch::Tensor forward_cached(const torch::Tensor& x, const std::vector<RopeTables>& ropes, LayerKVCache& cache);

  size_t rope;
  int64_t window;
  RopeAttention att{nullptr};
  torch::nn::AnyModule ff;
  RMSNorm pre_att{nullptr}, post_att{nullptr}, pre_ff{nullptr}, post_ff{nullptr};

 private:
  torch::Tensor feed_forward(const torch::Tensor& x);
};
TORCH_MODULE(DecoderBlock);

/// What a family gives the shared decoder: its sizes, names and blocks.
struct DecoderSpec {
  ModelShape shape;
  std::string name;          // in messages: "Llama 3.2", "Qwen3", "Gemma 3"
  std::string class_name;    // the reference's model class, as print(model) shows it: "Qwen3Model"
  std::string blocks_name;   // the block list's name in the state dict: "trf_blocks" or "blocks"
  torch::Dtype dtype = torch::kFloat;  // the embeddings', projections' and head's
  double embedding_scale = 1.0;        // Gemma 3: sqrt(emb_dim)
  NormOptions final_norm;
  std::vector<RopeTables> ropes;       // float32 [context_length, head_dim] each
  std::vector<DecoderBlockOptions> blocks;
  /// The feed-forward of block i, drawn after its attention.
  std::function<torch::nn::AnyModule(size_t block)> feed_forward;
};

/// The settings these families' configs share, checked: each size positive, the
/// heads' divisions, the dtype's name. Errors name `source` and the key.
struct DecoderSizes {
  int64_t vocab_size, context_length, emb_dim, n_heads, n_layers, n_kv_groups, head_dim;

  /// The sizes the model interface gives (LanguageModelImpl::shape).
  ModelShape shape() const { return {vocab_size, context_length, emb_dim, n_heads, n_kv_groups, n_layers}; }
};
void check_decoder_sizes(const DecoderSizes& sizes, std::string_view source);

/// A config's "dtype" ("float32", "bfloat16" or "float16", the course's torch dtypes),
/// or an llm::Error naming `source`.
torch::Dtype dtype_named(const std::string& name, std::string_view source);

/// Refuses, before anything is allocated, a model of `parameters` in `dtype` (and
/// `rope_tables` RoPE tables of [context_length, head_dim]) that would not fit in the
/// machine's memory.
void check_decoder_memory(double parameters, const std::string& dtype, const DecoderSizes& sizes, int rope_tables,
                          std::string_view family, std::string_view source);

/// Hugging Face's name for the tensor `key` of a model here whose block list is
/// `blocks_name` ("model.layers.3.self_attn.q_proj.weight" for
/// "trf_blocks.3.att.W_query.weight"): the names the course's load_weights_into_llama,
/// load_weights_into_qwen and load_weights_into_gemma read. An llm::Error for a key that
/// has none.
std::string hf_tensor_name(const std::string& key, const std::string& blocks_name);

/// The model the course's Llama 3.2, Qwen3 and Gemma 3 share: token embeddings,
/// blocks of RoPE attention and a gated feed-forward, a final RMSNorm and an output
/// head, registered in the reference's order and under its names (tok_emb, trf_blocks
/// or blocks, final_norm, out_head), so the same seed draws the reference's weights and
/// the state dicts load both ways. The RoPE tables are not in the state dict, as the
/// reference's non-persistent buffers are not. Each family derives from it and adds
/// its config.
struct RopeDecoderImpl : LanguageModelImpl {
  explicit RopeDecoderImpl(DecoderSpec spec);

  torch::Tensor forward(const torch::Tensor& in_idx) override;
  torch::Tensor forward_hidden(const torch::Tensor& in_idx) override;
  torch::Tensor forward_cached(const torch::Tensor& in_idx, KVCache& cache) override;
  ModelShape shape() const override { return spec_.shape; }
  torch::Device device() const override { return out_head->weight.device(); }
  Linear head() const override { return out_head; }
  void replace_head(Linear head) override;
  std::vector<std::shared_ptr<torch::nn::Module>> last_block_and_final_norm() const override;
  torch::Tensor attention_weights(const torch::Tensor& ids) override;
  /// The course's state dict names, or Hugging Face's (hf_tensor_name; without
  /// lm_head.weight the output head is the token embeddings', as with
  /// tie_word_embeddings), strictly: every tensor, each with its shape, and no other.
  void load_weights(NamedTensors file, const std::string& source) override;
  /// Every tensor under Hugging Face's name (hf_tensor_name), without lm_head.weight
  /// when the output head equals the token embeddings (tie_word_embeddings).
  NamedTensors hf_weights() const override;
  /// The elements of the RoPE tables (cos and sin of each): what the reference holds
  /// as buffers, which the course's calc_model_memory_size counts.
  int64_t rope_table_elements() const;

  torch::nn::Embedding tok_emb{nullptr};
  ModuleListOf<DecoderBlock> blocks{nullptr};
  RMSNorm final_norm{nullptr};
  Linear out_head{nullptr};

 protected:
  /// The config.json keys these families share (transformers' names), for a family's
  /// hf_config to add its own to.
  nlohmann::json hf_config_common(std::string_view architecture, std::string_view model_type) const;

 private:
  /// The RoPE tables on x's device (moved once, when the model moves).
  const std::vector<RopeTables>& ropes_for(const torch::Tensor& x);
  torch::Tensor embed(const torch::Tensor& in_idx);

  DecoderSpec spec_;
};

}  // namespace llm
