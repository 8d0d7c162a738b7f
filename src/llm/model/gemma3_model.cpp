#include "llm/model/gemma3_model.h"

#include <fmt/format.h>

#include <cmath>

#include "llm/nn/gated_feed_forward.h"
#include "llm/util/error.h"
#include "llm/util/json.h"

namespace llm {
namespace {

constexpr std::string_view kSliding = "sliding_attention", kFull = "full_attention";

const std::vector<ConfigField<Gemma3Config>>& gemma3_fields() {
  static const std::vector<ConfigField<Gemma3Config>> kFields = {
      {"vocab_size", &Gemma3Config::vocab_size, "Token ids the model knows"},
      {"context_length", &Gemma3Config::context_length, "Most tokens the model sees at once"},
      {"emb_dim", &Gemma3Config::emb_dim, "Embedding width"},
      {"n_heads", &Gemma3Config::n_heads, "Attention heads per layer"},
      {"n_layers", &Gemma3Config::n_layers, "Transformer blocks"},
      {"hidden_dim", &Gemma3Config::hidden_dim, "The feed-forward's inner width"},
      {"head_dim", &Gemma3Config::head_dim, "Width of each attention head"},
      {"qk_norm", &Gemma3Config::qk_norm, "RMSNorm on each query and key head"},
      {"n_kv_groups", &Gemma3Config::n_kv_groups, "Key/value groups of grouped-query attention"},
      {"rope_local_base", &Gemma3Config::rope_local_base, "RoPE's theta base on sliding-window layers"},
      {"rope_base", &Gemma3Config::rope_base, "RoPE's theta base on full-attention layers"},
      {"sliding_window", &Gemma3Config::sliding_window, "Tokens a sliding-window layer sees"},
      {"dtype", &Gemma3Config::dtype, "float32, bfloat16 or float16"},
      {"query_pre_attn_scalar", &Gemma3Config::query_pre_attn_scalar, "Queries are scaled by its -0.5th power"},
  };
  return kFields;
}

std::vector<std::string> read_layer_types(const nlohmann::json& value, std::string_view source) {
  if (!value.is_array()) throw Error(fmt::format("config '{}': layer_types must be a list of strings", source));
  std::vector<std::string> types;
  for (const auto& item : value) {
    const auto* type = item.get_ptr<const std::string*>();
    if (type == nullptr || (*type != kSliding && *type != kFull)) {
      throw Error(fmt::format("config '{}': each of layer_types must be \"{}\" or \"{}\"", source, kSliding, kFull));
    }
    types.push_back(*type);
  }
  return types;
}

DecoderSizes sizes(const Gemma3Config& c) {
  return {c.vocab_size, c.context_length, c.emb_dim, c.n_heads, c.n_layers, c.n_kv_groups, c.head_dim};
}

void validate(const Gemma3Config& c, std::string_view source) {
  check_decoder_sizes(sizes(c), source);
  if (c.hidden_dim <= 0 || c.sliding_window <= 0) {
    throw Error(fmt::format("config '{}': hidden_dim and sliding_window must be positive", source));
  }
  if (static_cast<int64_t>(c.layer_types.size()) != c.n_layers) {
    throw Error(fmt::format("config '{}': layer_types has {} entries; expected one per layer (n_layers {})", source,
                            c.layer_types.size(), c.n_layers));
  }
  if (!(c.rope_base > 1.0 && c.rope_local_base > 1.0 && c.query_pre_attn_scalar > 0)) {
    throw Error(fmt::format("config '{}': rope_base and rope_local_base must be above 1, query_pre_attn_scalar "
                            "positive",
                            source));
  }
  dtype_named(c.dtype, source);
}

DecoderSpec gemma3_spec(const Gemma3Config& c) {
  DecoderSpec spec;
  spec.shape = sizes(c).shape();
  spec.name = "Gemma 3";
  spec.class_name = "Gemma3Model";
  spec.blocks_name = "blocks";
  spec.dtype = dtype_named(c.dtype, "the model");
  spec.embedding_scale = std::pow(static_cast<double>(c.emb_dim), 0.5);
  spec.final_norm = {RMSNormStyle::kGemma, 1e-6, torch::kFloat};
  spec.ropes = {compute_rope_params(c.head_dim, c.rope_base, c.context_length),
                compute_rope_params(c.head_dim, c.rope_local_base, c.context_length)};
  for (const auto& type : c.layer_types) {
    DecoderBlockOptions block;
    block.attention = {c.emb_dim, c.n_heads, c.n_kv_groups, c.head_dim,
                       c.qk_norm ? std::optional(RMSNormStyle::kGemma) : std::nullopt, c.query_pre_attn_scalar, false,
                       spec.dtype};
    block.norm = spec.final_norm;
    block.norms = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                   "post_feedforward_layernorm"};
    const bool sliding = type == kSliding;
    block.rope = sliding ? 1 : 0;
    block.window = sliding ? c.sliding_window : 0;
    spec.blocks.push_back(block);
  }
  spec.feed_forward = [c, dtype = spec.dtype](size_t) {
    return torch::nn::AnyModule(GatedFeedForward(c.emb_dim, c.hidden_dim, GateActivation::kGELUTanh, dtype));
  };
  return spec;
}

}  // namespace

std::vector<std::string> Gemma3Config::default_layer_types(int64_t n_layers) {
  std::vector<std::string> types;
  for (int64_t i = 0; i < n_layers; ++i) types.emplace_back(i % 6 == 5 ? kFull : kSliding);
  return types;
}

double Gemma3Config::parameters() const {
  const double e = static_cast<double>(emb_dim), hd = static_cast<double>(head_dim);
  const double q = static_cast<double>(n_heads) * hd, kv = static_cast<double>(n_kv_groups) * hd;
  const double block = 2 * e * q + 2 * e * kv + (qk_norm ? 2 * hd : 0) + 3 * e * static_cast<double>(hidden_dim) + 4 * e;
  return 2 * static_cast<double>(vocab_size) * e + static_cast<double>(n_layers) * block + e;
}

ModelShape Gemma3ModelImpl::check_config(const nlohmann::json& settings, std::string_view source) {
  const auto c = config_from_json(settings, source);
  check_decoder_memory(c.parameters(), c.dtype, sizes(c), 2, "Gemma 3", source);
  return sizes(c).shape();
}

Gemma3Config Gemma3ModelImpl::config_from_json(const nlohmann::json& settings, std::string_view source) {
  Gemma3Config config;
  auto rest = settings;
  const auto types = rest.find("layer_types");
  std::optional<std::vector<std::string>> layer_types;
  if (types != rest.end()) {
    layer_types = read_layer_types(*types, source);
    rest.erase(types);
  }
  read_fields(rest, gemma3_fields(), config, "config", source);
  config.layer_types = layer_types ? *layer_types : Gemma3Config::default_layer_types(config.n_layers);
  validate(config, source);
  return config;
}

std::string Gemma3ModelImpl::hf_layout_problem(const Gemma3Config& config) {
  if (config.qk_norm) return {};
  return "Hugging Face's Gemma 3 normalises queries and keys; this config has qk_norm false";
}

const std::vector<std::string_view>& Gemma3ModelImpl::hf_architectures() {
  static const std::vector<std::string_view> kNames = {"Gemma3ForCausalLM"};
  return kNames;
}

// transformers' Gemma3TextConfig, as the notebook's GEMMA3_CONFIG_270M mirrors it;
// without layer_types, every sliding_window_pattern-th layer has full attention.
HfSettings Gemma3ModelImpl::settings_from_hf(const HfConfig& hf) {
  hf.require("hidden_activation", {"gelu_pytorch_tanh"}, "another activation");
  hf.require("attention_bias", {false}, "biases in the attention");
  hf.require("rms_norm_eps", {1e-6}, "another RMSNorm eps");
  hf.require("rope_scaling", {nullptr}, "RoPE scaling");
  hf.require("final_logit_softcapping", {nullptr}, "a softcap on the logits");
  hf.require("attn_logit_softcapping", {nullptr}, "a softcap on the attention scores");
  hf.require("use_bidirectional_attention", {false}, "bidirectional attention");
  const int64_t layers = hf.integer("num_hidden_layers");
  std::vector<std::string> types;
  if (hf.has("layer_types")) {
    types = hf.strings("layer_types");
  } else {
    const int64_t pattern = hf.integer("sliding_window_pattern", hf.integer("_sliding_window_pattern", 6));
    if (pattern <= 0) hf.fail("sliding_window_pattern", "must be positive");
    for (int64_t i = 0; i < layers; ++i) types.emplace_back((i + 1) % pattern == 0 ? kFull : kSliding);
  }
  return {{{"vocab_size", hf.integer("vocab_size")},
           {"context_length", hf.integer("max_position_embeddings")},
           {"emb_dim", hf.integer("hidden_size")},
           {"n_heads", hf.integer("num_attention_heads")},
           {"n_layers", layers},
           {"hidden_dim", hf.integer("intermediate_size")},
           {"head_dim", hf.integer("head_dim", 256)},
           {"qk_norm", true},
           {"n_kv_groups", hf.integer("num_key_value_heads")},
           {"rope_local_base", hf.number("rope_local_base_freq", 10'000.0)},
           {"rope_base", hf.number("rope_theta", 1'000'000.0)},
           {"sliding_window", hf.integer("sliding_window", 4096)},
           {"layer_types", types},
           {"dtype", hf.dtype()},
           {"query_pre_attn_scalar", hf.number("query_pre_attn_scalar", 256.0)}},
          hf.flag("tie_word_embeddings", true)};
}

Gemma3ModelImpl::Gemma3ModelImpl(const Gemma3Config& c) : RopeDecoderImpl(gemma3_spec(c)), config(c) {}

nlohmann::json Gemma3ModelImpl::config_json() const {
  auto json = fields_to_json(config, gemma3_fields());
  json["layer_types"] = config.layer_types;
  return json;
}

nlohmann::json Gemma3ModelImpl::hf_config() const {
  if (const auto problem = hf_layout_problem(config); !problem.empty()) throw Error(problem);
  auto json = hf_config_common("Gemma3ForCausalLM", "gemma3_text");
  json.update({{"intermediate_size", config.hidden_dim},
               {"hidden_activation", "gelu_pytorch_tanh"},
               {"rope_theta", config.rope_base},
               {"rope_local_base_freq", config.rope_local_base},
               {"rope_scaling", nullptr},
               {"sliding_window", config.sliding_window},
               {"layer_types", config.layer_types},
               {"query_pre_attn_scalar", config.query_pre_attn_scalar},
               {"final_logit_softcapping", nullptr},
               {"attn_logit_softcapping", nullptr}});
  return json;
}

}  // namespace llm
