#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llm/model/hf_config.h"
#include "llm/model/rope_decoder.h"

namespace llm {

/// The course's QWEN_CONFIG_06_B up to QWEN3_CONFIG_32B and QWEN3_CONFIG_30B_A3B
/// (pkg/llms_from_scratch/qwen3.py), with its key names. num_experts > 0 makes every
/// feed-forward a mixture of experts (then hidden_dim is unused). Defaults: Qwen3 0.6B.
struct Qwen3Config {
  int64_t vocab_size = 151'936;
  int64_t context_length = 40'960;
  int64_t emb_dim = 1024;
  int64_t n_heads = 16;
  int64_t n_layers = 28;
  int64_t hidden_dim = 3072;
  int64_t head_dim = 128;  // null in a config: emb_dim / n_heads
  bool qk_norm = true;
  int64_t n_kv_groups = 8;
  double rope_base = 1'000'000.0;
  std::string dtype = "bfloat16";
  int64_t num_experts = 0;
  int64_t num_experts_per_tok = 0;
  int64_t moe_intermediate_size = 0;

  bool moe() const { return num_experts > 0; }
  /// The parameters the model has, as the notebooks count them, from the sizes.
  double parameters() const;
};

/// Qwen3 from scratch (qwen3.py's Qwen3Model): RMSNorm pre-norm blocks of grouped-
/// query attention with QK-norm and a head_dim of its own, and a SwiGLU feed-forward
/// or a mixture of SwiGLU experts.
struct Qwen3ModelImpl : RopeDecoderImpl {
  static constexpr std::string_view kFamily = "qwen3";
  static ModelShape check_config(const nlohmann::json& settings, std::string_view source);
  static Qwen3Config config_from_json(const nlohmann::json& settings, std::string_view source);
  static std::string hf_layout_problem(const Qwen3Config& config);
  /// The architectures of Hugging Face's config.json this family reads, and its
  /// settings from such a config.json (HfConfig refuses what the model cannot do).
  static const std::vector<std::string_view>& hf_architectures();
  static HfSettings settings_from_hf(const HfConfig& hf);

  explicit Qwen3ModelImpl(const Qwen3Config& config);
  std::string_view family() const override { return kFamily; }
  nlohmann::json config_json() const override;
  /// config.json in transformers' keys: what settings_from_hf reads back.
  nlohmann::json hf_config() const override;

  Qwen3Config config;
};
TORCH_MODULE(Qwen3Model);

}  // namespace llm
