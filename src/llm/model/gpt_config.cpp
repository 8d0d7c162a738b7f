#include "llm/model/gpt_config.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

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
  const auto json = parse_json_object(text, "config", source);
  static const std::map<std::string_view, int64_t GPTConfig::*> kIntegers = {
      {"vocab_size", &GPTConfig::vocab_size}, {"context_length", &GPTConfig::context_length},
      {"emb_dim", &GPTConfig::emb_dim},       {"n_heads", &GPTConfig::n_heads},
      {"n_layers", &GPTConfig::n_layers},     {"n_kv_groups", &GPTConfig::n_kv_groups}};
  GPTConfig config;
  for (const auto& item : json.items()) {
    const auto& key = item.key();  // named, not bound: C++17 lambdas cannot capture bindings
    const auto& value = item.value();
    const auto wrong = [&](const char* expected) {
      return Error(fmt::format("config '{}': {} must be {}, got {}", source, key, expected, value.dump()));
    };
    if (const auto it = kIntegers.find(key); it != kIntegers.end()) {
      if (!value.is_number_integer()) throw wrong("an integer");
      config.*(it->second) = value.get<int64_t>();
    } else if (key == "drop_rate") {
      if (!value.is_number()) throw wrong("a number");
      config.drop_rate = value.get<double>();
    } else if (key == "qkv_bias") {
      if (!value.is_boolean()) throw wrong("true or false");
      config.qkv_bias = value.get<bool>();
    } else if (key == "attention") {
      if (!value.is_string()) throw wrong("a string");
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
