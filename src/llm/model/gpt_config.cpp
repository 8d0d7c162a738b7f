#include "llm/model/gpt_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"
#include "llm/util/memory.h"

namespace llm {

double GPTConfig::approximate_parameters() const {
  const double v = static_cast<double>(vocab_size), c = static_cast<double>(context_length);
  const double e = static_cast<double>(emb_dim);
  // Per block: the four attention projections (4e^2; with a latent of l, 2e^2 + 3el),
  // the feed-forward's two of hidden width h (2eh; experts: 3eh each and the router),
  // with their biases and the two norms (about 13e).
  const double l = attention == "mla" ? static_cast<double>(resolved_latent_dim()) : 0;
  const double h = static_cast<double>(resolved_hidden_dim()), x = static_cast<double>(experts());
  const double attention_weights = attention == "mla" ? 2 * e * e + 3 * e * l : 4 * e * e;
  const double ff_weights = x > 0 ? x * 3 * e * h + x * e : 2 * e * h + h;
  return 2 * v * e + c * e + static_cast<double>(n_layers) * (attention_weights + ff_weights + 13 * e) + 2 * e;
}

int64_t GPTConfig::window_of_layer(int64_t layer) const {
  if (attention != "swa") return 0;
  const int64_t k = sliding_window_stride.value_or(2);
  const bool sliding = k <= 0 ? k < 0 : layer % (k + 1) < k;  // the course's K:1 schedule
  return sliding ? *sliding_window_size : 0;
}

double GPTConfig::approximate_bytes() const {
  const double c = static_cast<double>(context_length);
  return 4 * approximate_parameters() + 4 * c * c * static_cast<double>(n_layers);  // + each block's mask
}

void GPTConfig::validate(std::string_view source) const {
  const auto positive = [&](const char* key, int64_t value) {
    if (value <= 0) throw Error(fmt::format("config '{}': {} must be positive, got {}", source, key, value));
  };
  positive("vocab_size", vocab_size);
  positive("context_length", context_length);
  positive("emb_dim", emb_dim);
  positive("n_heads", n_heads);
  positive("n_layers", n_layers);
  if (emb_dim % n_heads != 0) {
    throw Error(fmt::format("config '{}': n_heads ({}) must divide emb_dim ({})", source, n_heads, emb_dim));
  }
  const auto rate = [&](const char* key, double value) {
    if (!(value >= 0.0 && value < 1.0)) {
      throw Error(fmt::format("config '{}': {} must be in [0, 1), got {}", source, key, value));
    }
  };
  rate("drop_rate", drop_rate);
  rate("drop_rate_emb", emb_drop_rate());
  rate("drop_rate_attn", attn_drop_rate());
  rate("drop_rate_shortcut", shortcut_drop_rate());
  validate_variants(source);
  if (n_kv_groups < 0) {
    throw Error(fmt::format("config '{}': n_kv_groups must be positive (or 0: one per head), got {}", source, n_kv_groups));
  }
  if (n_kv_groups > 0 && attention != "gqa") {
    throw Error(fmt::format("config '{}': n_kv_groups ({}) needs attention \"gqa\"; with \"{}\" every head has its own "
                            "keys and values",
                            source, n_kv_groups, attention));
  }
  if (n_kv_groups > 0 && n_heads % n_kv_groups != 0) {
    throw Error(fmt::format("config '{}': n_kv_groups ({}) must divide n_heads ({})", source, n_kv_groups, n_heads));
  }
  check_fits_in_memory(approximate_bytes(),
                       fmt::format("config '{}': a GPT of vocab_size {}, context_length {}, emb_dim {} and n_layers {} "
                                   "({:.3g} parameters)",
                                   source, vocab_size, context_length, emb_dim, n_layers, approximate_parameters()));
}

void GPTConfig::validate_variants(std::string_view source) const {
  if (attention != "mha" && attention != "gqa" && attention != "mla" && attention != "swa") {
    throw Error(fmt::format("config '{}': attention must be \"mha\", \"gqa\", \"mla\" or \"swa\", got \"{}\"", source,
                            attention));
  }
  const auto needs = [&](const char* key, const std::optional<int64_t>& value, const char* what, bool given) {
    if (value && !given) throw Error(fmt::format("config '{}': {} ({}) needs {}", source, key, *value, what));
  };
  needs("latent_dim", latent_dim, "attention \"mla\"", attention == "mla");
  needs("sliding_window_size", sliding_window_size, "attention \"swa\"", attention == "swa");
  needs("sliding_window_stride", sliding_window_stride, "attention \"swa\"", attention == "swa");
  needs("num_experts_per_tok", num_experts_per_tok, "num_experts", experts() > 0);
  const auto in_range = [&](const char* key, int64_t value, int64_t low, int64_t high, const char* high_name) {
    if (value < low || value > high) {
      throw Error(fmt::format("config '{}': {} must be in {}..{} ({}), got {}", source, key, low, high, high_name, value));
    }
  };
  if (latent_dim) in_range("latent_dim", *latent_dim, 1, emb_dim, "emb_dim");
  if (attention == "swa" && !sliding_window_size) {
    throw Error(fmt::format("config '{}': attention \"swa\" needs sliding_window_size", source));
  }
  if (sliding_window_size) in_range("sliding_window_size", *sliding_window_size, 1, context_length, "context_length");
  if (hidden_dim && *hidden_dim <= 0) {
    throw Error(fmt::format("config '{}': hidden_dim must be positive, got {}", source, *hidden_dim));
  }
  if (experts() < 0) {
    throw Error(fmt::format("config '{}': num_experts must be positive (or 0: dense), got {}", source, experts()));
  }
  if (experts() > 0) in_range("num_experts_per_tok", experts_per_token(), 1, experts(), "num_experts");
}

GPTConfig parse_gpt_config(std::string_view text, std::string_view source) {
  return gpt_config_from_json(parse_json_object(text, "config", source), source);
}

GPTConfig gpt_config_from_json(const nlohmann::json& json, std::string_view source) {
  GPTConfig config;
  read_fields(json, gpt_config_fields(), config, "config", source);
  config.validate(source);
  return config;
}

GPTConfig load_gpt_config(const std::filesystem::path& path) {
  return parse_gpt_config(read_file(path), path.string());
}

nlohmann::json to_json(const GPTConfig& config) { return fields_to_json(config, gpt_config_fields()); }

const std::vector<ConfigField<GPTConfig>>& gpt_config_fields() {
  static const std::vector<ConfigField<GPTConfig>> kFields = {
      {"vocab_size", &GPTConfig::vocab_size, "Token ids the model knows"},
      {"context_length", &GPTConfig::context_length, "Most tokens the model sees at once"},
      {"emb_dim", &GPTConfig::emb_dim, "Embedding width"},
      {"n_heads", &GPTConfig::n_heads, "Attention heads per layer"},
      {"n_layers", &GPTConfig::n_layers, "Transformer blocks"},
      {"drop_rate", &GPTConfig::drop_rate, "Dropout rate"},
      {"drop_rate_emb", &GPTConfig::drop_rate_emb, "Dropout after the embeddings (default: drop_rate)"},
      {"drop_rate_attn", &GPTConfig::drop_rate_attn, "Dropout on the attention weights (default: drop_rate)"},
      {"drop_rate_shortcut", &GPTConfig::drop_rate_shortcut, "Dropout on the shortcut branches (default: drop_rate)"},
      {"qkv_bias", &GPTConfig::qkv_bias, "Bias in the query, key and value projections"},
      {"attention", &GPTConfig::attention, "mha, gqa, mla or swa"},
      {"n_kv_groups", &GPTConfig::n_kv_groups, "Key/value groups with gqa (0: one per head)"},
      {"latent_dim", &GPTConfig::latent_dim, "The latent of keys and values with mla (default: max(16, emb_dim / 8))"},
      {"sliding_window_size", &GPTConfig::sliding_window_size, "The window of each query with swa"},
      {"sliding_window_stride", &GPTConfig::sliding_window_stride,
       "K in swa's K:1 schedule of sliding and regular layers (default: 2; 0: none slide, negative: all)"},
      {"hidden_dim", &GPTConfig::hidden_dim, "The feed-forward's width (default: 4 * emb_dim)"},
      {"num_experts", &GPTConfig::num_experts, "Experts in each feed-forward (default: 0, dense)"},
      {"num_experts_per_tok", &GPTConfig::num_experts_per_tok, "Experts routed per token (default: 2)"},
  };
  return kFields;
}

}  // namespace llm
