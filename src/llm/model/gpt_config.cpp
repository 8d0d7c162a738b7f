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
  // Per block: the four attention projections (4e^2; with a latent of l, 2e^2 + 3el)
  // and the feed-forward's two (8e^2), with their biases and the two norms (about 13e).
  const double l = attention == "mla" ? static_cast<double>(latent_dim.value_or(std::max<int64_t>(16, emb_dim / 8))) : 0;
  const double attention_weights = attention == "mla" ? 2 * e * e + 3 * e * l : 4 * e * e;
  return 2 * v * e + c * e + static_cast<double>(n_layers) * (attention_weights + 8 * e * e + 13 * e) + 2 * e;
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
  if (attention != "mha" && attention != "gqa" && attention != "mla") {
    throw Error(
        fmt::format("config '{}': attention must be \"mha\", \"gqa\" or \"mla\", got \"{}\"", source, attention));
  }
  if (latent_dim && attention != "mla") {
    throw Error(fmt::format("config '{}': latent_dim ({}) needs attention \"mla\"", source, *latent_dim));
  }
  if (latent_dim) positive("latent_dim", *latent_dim);
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
      {"attention", &GPTConfig::attention, "mha, gqa or mla"},
      {"n_kv_groups", &GPTConfig::n_kv_groups, "Key/value groups with gqa (0: one per head)"},
      {"latent_dim", &GPTConfig::latent_dim, "The latent of keys and values with mla (default: max(16, emb_dim / 8))"},
  };
  return kFields;
}

}  // namespace llm
