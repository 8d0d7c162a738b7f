#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/model/hf_config.h"
#include "llm/model/rope_decoder.h"

namespace llm {

/// The Gemma 3 notebook's GEMMA3_CONFIG_270M (ch05/12_gemma3), with its key names:
/// layer_types says, block by block, "sliding_attention" (a window of sliding_window
/// tokens, RoPE of base rope_local_base) or "full_attention" (RoPE of base rope_base).
struct Gemma3Config {
  int64_t vocab_size = 262'144;
  int64_t context_length = 32'768;
  int64_t emb_dim = 640;
  int64_t n_heads = 4;
  int64_t n_layers = 18;
  int64_t hidden_dim = 2048;
  int64_t head_dim = 256;
  bool qk_norm = true;
  int64_t n_kv_groups = 1;
  double rope_local_base = 10'000.0;
  double rope_base = 1'000'000.0;
  int64_t sliding_window = 512;
  std::vector<std::string> layer_types = default_layer_types(18);
  std::string dtype = "bfloat16";
  double query_pre_attn_scalar = 256;

  /// Gemma 3's pattern: five sliding-window layers, then one of full attention.
  static std::vector<std::string> default_layer_types(int64_t n_layers);
  /// The parameters the model has, as the notebook counts them, from the sizes.
  double parameters() const;
};

/// Gemma 3 from scratch (the notebook's Gemma3Model): token embeddings scaled by
/// sqrt(emb_dim), blocks that normalise both before and after attention and the GeGLU
/// feed-forward (Gemma's RMSNorm, 1 + w), grouped-query attention with QK-norm, and
/// sliding-window layers with their own RoPE base in a 5:1 pattern.
struct Gemma3ModelImpl : RopeDecoderImpl {
  static constexpr std::string_view kFamily = "gemma3";
  static ModelShape check_config(const nlohmann::json& settings, std::string_view source);
  static Gemma3Config config_from_json(const nlohmann::json& settings, std::string_view source);
  static std::string hf_layout_problem(const Gemma3Config& config);
  /// The architectures of Hugging Face's config.json this family reads, and its
  /// settings from such a config.json (HfConfig refuses what the model cannot do).
  static const std::vector<std::string_view>& hf_architectures();
  static HfSettings settings_from_hf(const HfConfig& hf);

  explicit Gemma3ModelImpl(const Gemma3Config& config);
  std::string_view family() const override { return kFamily; }
  nlohmann::json config_json() const override;
  /// config.json in transformers' keys: what settings_from_hf reads back.
  nlohmann::json hf_config() const override;

  Gemma3Config config;
};
TORCH_MODULE(Gemma3Model);

}  // namespace llm
