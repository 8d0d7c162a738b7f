#include "llm/model/gpt_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

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
  if (!(drop_rate >= 0.0 && drop_rate < 1.0)) {
    throw Error(fmt::format("config '{}': drop_rate must be in [0, 1), got {}", source, drop_rate));
  }
  if (attention != "mha" && attention != "gqa") {
    throw Error(fmt::format("config '{}': attention must be \"mha\" or \"gqa\", got \"{}\"", source, attention));
  }
  if (n_kv_groups < 0) {
    throw Error(fmt::format("config '{}': n_kv_groups must be positive (or 0: one per head), got {}", source, n_kv_groups));
  }
  if (n_kv_groups > 0 && n_heads % n_kv_groups != 0) {
    throw Error(fmt::format("config '{}': n_kv_groups ({}) must divide n_heads ({})", source, n_kv_groups, n_heads));
  }
}

GPTConfig parse_gpt_config(std::string_view text, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("config '{}': not valid JSON ({})", source, e.what()));
  }
  if (!json.is_object()) throw Error(fmt::format("config '{}': expected a JSON object", source));
  GPTConfig config;
  for (const auto& [key, value] : json.items()) {
    const auto integer = [&](int64_t& field) {
      if (!value.is_number_integer()) {
        throw Error(fmt::format("config '{}': {} must be an integer, got {}", source, key, value.dump()));
      }
      field = value.get<int64_t>();
    };
    if (key == "vocab_size") {
      integer(config.vocab_size);
    } else if (key == "context_length") {
      integer(config.context_length);
    } else if (key == "emb_dim") {
      integer(config.emb_dim);
    } else if (key == "n_heads") {
      integer(config.n_heads);
    } else if (key == "n_layers") {
      integer(config.n_layers);
    } else if (key == "n_kv_groups") {
      integer(config.n_kv_groups);
    } else if (key == "drop_rate") {
      if (!value.is_number()) throw Error(fmt::format("config '{}': drop_rate must be a number, got {}", source, value.dump()));
      config.drop_rate = value.get<double>();
    } else if (key == "qkv_bias") {
      if (!value.is_boolean()) throw Error(fmt::format("config '{}': qkv_bias must be true or false, got {}", source, value.dump()));
      config.qkv_bias = value.get<bool>();
    } else if (key == "attention") {
      if (!value.is_string()) throw Error(fmt::format("config '{}': attention must be a string, got {}", source, value.dump()));
      config.attention = value.get<std::string>();
    } else {
      throw Error(fmt::format("config '{}': unknown key '{}'", source, key));
    }
  }
  config.validate(source);
  return config;
}

GPTConfig load_gpt_config(const std::filesystem::path& path) {
  return parse_gpt_config(read_file(path), path.string());
}

nlohmann::json to_json(const GPTConfig& c) {
  return {{"vocab_size", c.vocab_size}, {"context_length", c.context_length}, {"emb_dim", c.emb_dim},
          {"n_heads", c.n_heads},       {"n_layers", c.n_layers},             {"drop_rate", c.drop_rate},
          {"qkv_bias", c.qkv_bias},     {"attention", c.attention},           {"n_kv_groups", c.n_kv_groups}};
}

}  // namespace llm
