#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "llm/util/config_field.h"

namespace llm {

/// A GPT's shape, with the lesson's key names. Defaults are GPT-2 small (124M).
struct GPTConfig {
  int64_t vocab_size = 50257;
  int64_t context_length = 1024;
  int64_t emb_dim = 768;
  int64_t n_heads = 12;
  int64_t n_layers = 12;
  double drop_rate = 0.1;
  /// Exercise 4.3: separate dropout rates after the embeddings, on the attention
  /// weights and on the shortcut branches. Unset, each is drop_rate.
  std::optional<double> drop_rate_emb, drop_rate_attn, drop_rate_shortcut;
  bool qkv_bias = false;
  /// "mha" (multi-head attention), "gqa" (grouped-query attention), "mla" (multi-head
  /// latent attention, ch04/05_mla) or "swa" (sliding-window attention, ch04/06_swa).
  std::string attention = "mha";
  /// Key/value groups, with "gqa" only; 0 means one per head.
  int64_t n_kv_groups = 0;
  /// The latent each token's keys and values are up-projected from, with "mla" only;
  /// unset, the course's default max(16, emb_dim / 8).
  std::optional<int64_t> latent_dim;
  /// With "swa": the window each query sees (itself included), required, and the
  /// course's K:1 schedule, K sliding-window layers and then a regular one (0: all
  /// regular, negative: all sliding); unset, the course's script's 2.
  std::optional<int64_t> sliding_window_size, sliding_window_stride;
  /// The feed-forward's width; unset, 4 * emb_dim (ch04/07_moe's hidden_dim).
  std::optional<int64_t> hidden_dim;
  /// Mixture of experts (ch04/07_moe): num_experts SwiGLU experts of hidden_dim in each
  /// block, num_experts_per_tok of them (unset: the course's script's 2) routed per
  /// token. Unset or 0: the dense feed-forward.
  std::optional<int64_t> num_experts, num_experts_per_tok;

  /// The key/value heads each layer has: n_kv_groups, or n_heads when it is 0.
  int64_t kv_heads() const { return n_kv_groups > 0 ? n_kv_groups : n_heads; }
  int64_t resolved_latent_dim() const { return latent_dim.value_or(std::max<int64_t>(16, emb_dim / 8)); }
  int64_t resolved_hidden_dim() const { return hidden_dim.value_or(4 * emb_dim); }
  int64_t experts() const { return num_experts.value_or(0); }
  int64_t experts_per_token() const { return num_experts_per_tok.value_or(2); }
  /// Block `layer`'s sliding window: 0 (none) unless "swa" puts it in the K:1 schedule.
  int64_t window_of_layer(int64_t layer) const;

  double emb_drop_rate() const { return drop_rate_emb.value_or(drop_rate); }
  double attn_drop_rate() const { return drop_rate_attn.value_or(drop_rate); }
  double shortcut_drop_rate() const { return drop_rate_shortcut.value_or(drop_rate); }

  /// The model's parameters, about (as a double: a hostile config's count overflows
  /// int64), and the bytes it takes in float32 with its causal-mask buffers.
  double approximate_parameters() const;
  double approximate_bytes() const;

  /// Throws llm::Error naming `source` and the first impossible value, or the sizes
  /// when the model would not fit in the machine's memory.
  void validate(std::string_view source = "config") const;

 private:
  /// validate()'s checks of the attention and feed-forward variants.
  void validate_variants(std::string_view source) const;
};

/// Reads a JSON config: defaults, then the file's keys. An unknown key, a value of
/// the wrong type or an impossible size is an llm::Error naming the file and the key.
GPTConfig load_gpt_config(const std::filesystem::path& path);

/// The same from JSON text; `source` names it in errors.
GPTConfig parse_gpt_config(std::string_view json, std::string_view source);

/// The same from a parsed JSON object.
GPTConfig gpt_config_from_json(const nlohmann::json& json, std::string_view source);

nlohmann::json to_json(const GPTConfig& config);

/// GPTConfig's fields with their keys: the one list that reading, writing and the
/// recorded outputs (src/llm/reference) follow.
const std::vector<ConfigField<GPTConfig>>& gpt_config_fields();

}  // namespace llm
