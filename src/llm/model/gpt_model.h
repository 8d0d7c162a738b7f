#pragma once

#include <torch/torch.h>

#include "llm/attention/kv_cache.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/model/gpt_config.h"
#include "llm/model/hf_config.h"
#include "llm/model/language_model.h"
#include "llm/nn/layers.h"
#include "llm/nn/linear.h"
#include "llm/nn/module_list.h"
#include "llm/nn/moe_feed_forward.h"

namespace llm {

/// Wall time summed over calls: the course's MoE script prints its feed-forwards'
/// average per call.
struct CallTimes {
  double total_ms = 0;
  int64_t calls = 0;
};

/// Lesson 4.5: a pre-norm transformer block. Attention, then feed-forward, each
/// after a LayerNorm, each with dropout on its output and a shortcut around it.
/// [b, t, emb_dim] -> [b, t, emb_dim]. `layer` is the block's index in the model
/// (sliding-window attention's schedule depends on it).
struct TransformerBlockImpl : torch::nn::Module {
  explicit TransformerBlockImpl(const GPTConfig& config, int64_t layer = 0);
  torch::Tensor forward(torch::Tensor x);
  /// The same for x's tokens following those whose keys and values `cache` holds.
  torch::Tensor forward_cached(torch::Tensor x, LayerKVCache& cache);

  /// MultiHeadAttention, GroupedQueryAttention ("gqa"), MultiHeadLatentAttention
  /// ("mla") or SlidingWindowAttention ("swa").
  AttentionHeads att{nullptr};
  /// FeedForward, or MoEFeedForward with num_experts.
  torch::nn::AnyModule ff;
  LayerNorm norm1{nullptr}, norm2{nullptr};
  torch::nn::Dropout drop_shortcut{nullptr};
  /// When set, every feed-forward call adds its wall time here.
  std::shared_ptr<CallTimes> ff_times;

 private:
  torch::Tensor feed_forward(const torch::Tensor& x);
};
TORCH_MODULE(TransformerBlock);

/// Lesson 4.6: the GPT, the first LanguageModel family ("gpt2"). Token ids [b, t] ->
/// logits [b, t, vocab_size]. Submodules carry the lesson's names, so the state dict
/// is the PyTorch reference's. The config is taken as valid: it was validated where it
/// was read (load_gpt_config, ModelConfig).
struct GPTModelImpl : LanguageModelImpl {
  static constexpr std::string_view kFamily = "gpt2";
  /// The family's entry in model_families(): its settings checked, and read.
  static ModelShape check_config(const nlohmann::json& settings, std::string_view source);
  static GPTConfig config_from_json(const nlohmann::json& settings, std::string_view source);
  static std::string hf_layout_problem(const GPTConfig& config);
  /// The architectures of Hugging Face's config.json this family reads, and its
  /// settings from such a config.json (HfConfig refuses what the model cannot do).
  static const std::vector<std::string_view>& hf_architectures();
  static HfSettings settings_from_hf(const HfConfig& hf);

  explicit GPTModelImpl(const GPTConfig& config);
  torch::Tensor forward(const torch::Tensor& in_idx) override;
  torch::Tensor forward_hidden(const torch::Tensor& in_idx) override;
  torch::Tensor forward_cached(const torch::Tensor& in_idx, KVCache& cache) override;

  ModelShape shape() const override;
  torch::Device device() const override { return out_head->weight.device(); }
  Linear head() const override { return out_head; }
  void replace_head(Linear head) override;
  std::vector<std::shared_ptr<torch::nn::Module>> last_block_and_final_norm() const override;
  torch::Tensor attention_weights(const torch::Tensor& ids) override;
  std::string_view family() const override { return kFamily; }
  nlohmann::json config_json() const override;
  /// The lesson's state dict (torch.save'd, lesson 5.4's model_and_optimizer.pth, or
  /// safetensors with its names) or Hugging Face's GPT-2 (load_gpt_weights).
  void load_weights(NamedTensors file, const std::string& source) override;
  NamedTensors hf_weights() const override;
  nlohmann::json hf_config() const override;

  GPTConfig config;
  torch::nn::Embedding tok_emb{nullptr}, pos_emb{nullptr};
  torch::nn::Dropout drop_emb{nullptr};
  ModuleListOf<TransformerBlock> trf_blocks{nullptr};  // the lesson's nn.Sequential, run block by block
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
