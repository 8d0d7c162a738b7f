#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llm/model/hf_config.h"
#include "llm/model/rope_decoder.h"
#include "llm/nn/rope.h"

namespace llm {

/// The course's LLAMA32_CONFIG_1B and _3B (pkg/llms_from_scratch/llama3.py), with its
/// key names; "rope_freq" is Llama 3's RoPE frequency scaling. Defaults: Llama 3.2 1B.
struct Llama3Config {
  int64_t vocab_size = 128'256;
  int64_t context_length = 131'072;
  int64_t emb_dim = 2048;
  int64_t n_heads = 32;
  int64_t n_layers = 16;
  int64_t hidden_dim = 8192;
  int64_t n_kv_groups = 8;
  double rope_base = 500'000.0;
  std::string dtype = "bfloat16";
  std::optional<RopeScaling> rope_freq = RopeScaling{};

  int64_t head_dim() const { return emb_dim / n_heads; }
  /// The parameters the model has, as the notebook counts them (the output head apart
  /// from the token embeddings), computed from the sizes.
  double parameters() const;
};

/// Llama 3.2 from scratch (llama3.py's Llama3Model): RMSNorm pre-norm blocks of
/// grouped-query attention with Llama 3's scaled RoPE and a SwiGLU feed-forward.
struct Llama3ModelImpl : RopeDecoderImpl {
  static constexpr std::string_view kFamily = "llama3";
  static ModelShape check_config(const nlohmann::json& settings, std::string_view source);
  static Llama3Config config_from_json(const nlohmann::json& settings, std::string_view source);
  static std::string hf_layout_problem(const Llama3Config& config);
  /// The architectures of Hugging Face's config.json this family reads, and its
  /// settings from such a config.json (HfConfig refuses what the model cannot do).
  static const std::vector<std::string_view>& hf_architectures();
  static HfSettings settings_from_hf(const HfConfig& hf);

  explicit Llama3ModelImpl(const Llama3Config& config);
  std::string_view family() const override { return kFamily; }
  nlohmann::json config_json() const override;
  /// config.json in transformers' keys: what settings_from_hf reads back.
  nlohmann::json hf_config() const override;

  Llama3Config config;
};
TORCH_MODULE(Llama3Model);

}  // namespace llm
