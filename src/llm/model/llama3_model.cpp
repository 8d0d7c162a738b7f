#include "llm/model/llama3_model.h"

#include <fmt/format.h>

#include "llm/nn/gated_feed_forward.h"
#include "llm/util/error.h"
#include "llm/util/json.h"

namespace llm {
namespace {

const std::vector<ConfigField<Llama3Config>>& llama3_fields() {
  static const std::vector<ConfigField<Llama3Config>> kFields = {
      {"vocab_size", &Llama3Config::vocab_size, "Token ids the model knows"},
      {"context_length", &Llama3Config::context_length, "Most tokens the model sees at once"},
      {"emb_dim", &Llama3Config::emb_dim, "Embedding width"},
      {"n_heads", &Llama3Config::n_heads, "Attention heads per layer"},
      {"n_layers", &Llama3Config::n_layers, "Transformer blocks"},
      {"hidden_dim", &Llama3Config::hidden_dim, "The feed-forward's inner width"},
      {"n_kv_groups", &Llama3Config::n_kv_groups, "Key/value groups of grouped-query attention"},
      {"rope_base", &Llama3Config::rope_base, "RoPE's theta base"},
      {"dtype", &Llama3Config::dtype, "float32, bfloat16 or float16"},
  };
  return kFields;
}

const std::vector<ConfigField<RopeScaling>>& rope_freq_fields() {
  static const std::vector<ConfigField<RopeScaling>> kFields = {
      {"factor", &RopeScaling::factor, "How much slower the low frequencies turn"},
      {"low_freq_factor", &RopeScaling::low_freq_factor, "Wavelengths above original / this are slowed"},
      {"high_freq_factor", &RopeScaling::high_freq_factor, "Wavelengths below original / this are kept"},
      {"original_context_length", &RopeScaling::original_context_length, "The context the model was trained on"},
  };
  return kFields;
}

DecoderSizes sizes(const Llama3Config& c) {
  return {c.vocab_size, c.context_length, c.emb_dim, c.n_heads, c.n_layers, c.n_kv_groups, c.head_dim()};
}

void validate(const Llama3Config& c, std::string_view source) {
  if (c.n_heads > 0 && c.emb_dim % c.n_heads != 0) {
    throw Error(fmt::format("config '{}': n_heads ({}) must divide emb_dim ({})", source, c.n_heads, c.emb_dim));
  }
  check_decoder_sizes(sizes(c), source);
  if (c.hidden_dim <= 0) throw Error(fmt::format("config '{}': hidden_dim must be positive, got {}", source, c.hidden_dim));
  if (!(c.rope_base > 1.0)) throw Error(fmt::format("config '{}': rope_base must be above 1, got {}", source, c.rope_base));
  if (const auto& f = c.rope_freq; f && !(f->factor > 0 && f->low_freq_factor > 0 && f->high_freq_factor > f->low_freq_factor &&
                                            f->original_context_length > 0)) {
    throw Error(fmt::format("config '{}': rope_freq needs factor > 0, 0 < low_freq_factor < high_freq_factor and "
                            "original_context_length > 0",
                            source));
  }
  dtype_named(c.dtype, source);
}

DecoderSpec llama3_spec(const Llama3Config& c) {
  DecoderSpec spec;
  spec.shape = sizes(c).shape();
  spec.name = "Llama 3.2";
  spec.class_name = "Llama3Model";
  spec.blocks_name = "trf_blocks";
  spec.dtype = dtype_named(c.dtype, "the model");
  spec.final_norm = {RMSNormStyle::kLlama, 1e-5, spec.dtype};
  spec.ropes = {compute_rope_params(c.head_dim(), c.rope_base, c.context_length, c.rope_freq)};
  DecoderBlockOptions block;
  block.attention = {c.emb_dim, c.n_heads, c.n_kv_groups, 0, std::nullopt, std::nullopt, /*keys_first=*/true, spec.dtype};
  block.norm = spec.final_norm;
  block.norms = {"norm1", "", "norm2", ""};
  spec.blocks.assign(static_cast<size_t>(c.n_layers), block);
  spec.feed_forward = [c, dtype = spec.dtype](size_t) {
    return torch::nn::AnyModule(GatedFeedForward(c.emb_dim, c.hidden_dim, GateActivation::kSiLU, dtype));
  };
  return spec;
}

}  // namespace

double Llama3Config::parameters() const {
  const double e = static_cast<double>(emb_dim), kv = static_cast<double>(n_kv_groups * head_dim());
  const double block = 2 * e * e + 2 * e * kv + 3 * e * static_cast<double>(hidden_dim) + 2 * e;
  return 2 * static_cast<double>(vocab_size) * e + static_cast<double>(n_layers) * block + e;
}

ModelShape Llama3ModelImpl::check_config(const nlohmann::json& settings, std::string_view source) {
  const auto c = config_from_json(settings, source);
  check_decoder_memory(c.parameters(), c.dtype, sizes(c), 1, "Llama 3.2", source);
  return sizes(c).shape();
}

Llama3Config Llama3ModelImpl::config_from_json(const nlohmann::json& settings, std::string_view source) {
  Llama3Config config;
  auto rest = settings;
  if (const auto freq = rest.find("rope_freq"); freq != rest.end()) {
    if (freq->is_null()) {
      config.rope_freq.reset();
    } else {
      if (!freq->is_object()) throw Error(fmt::format("config '{}': rope_freq must be an object or null", source));
      RopeScaling scaling;
      read_fields(*freq, rope_freq_fields(), scaling, "config", source);
      config.rope_freq = scaling;
    }
    rest.erase(freq);
  }
  read_fields(rest, llama3_fields(), config, "config", source);
  validate(config, source);
  return config;
}

std::string Llama3ModelImpl::hf_layout_problem(const Llama3Config&) { return {}; }

const std::vector<std::string_view>& Llama3ModelImpl::hf_architectures() {
  static const std::vector<std::string_view> kNames = {"LlamaForCausalLM"};
  return kNames;
}

// transformers' LlamaConfig, as the course's LLAMA32_CONFIG_1B mirrors it.
HfSettings Llama3ModelImpl::settings_from_hf(const HfConfig& hf) {
  hf.require("hidden_act", {"silu"}, "another activation");
  hf.require("attention_bias", {false}, "biases in the attention");
  hf.require("mlp_bias", {false}, "biases in the feed-forward");
  hf.require("rms_norm_eps", {1e-5}, "another RMSNorm eps");
  const int64_t heads = hf.integer("num_attention_heads"), width = hf.integer("hidden_size");
  if (hf.has("head_dim") && heads > 0 && hf.integer("head_dim") * heads != width) {
    hf.fail("head_dim", "must be hidden_size / num_attention_heads: the course's Llama derives it");
  }
  nlohmann::json rope_freq;  // null: no scaling
  if (hf.has("rope_scaling")) {
    const HfConfig scaling(hf.object("rope_scaling"), hf.source() + ": rope_scaling");
    if (scaling.string("rope_type", scaling.string("type", "")) != "llama3") {
      hf.fail("rope_scaling", "must be Llama 3's (rope_type \"llama3\") or null");
    }
    rope_freq = {{"factor", scaling.number("factor")},
                 {"low_freq_factor", scaling.number("low_freq_factor")},
                 {"high_freq_factor", scaling.number("high_freq_factor")},
                 {"original_context_length", scaling.integer("original_max_position_embeddings")}};
  }
  return {{{"vocab_size", hf.integer("vocab_size")},
           {"context_length", hf.integer("max_position_embeddings")},
           {"emb_dim", width},
           {"n_heads", heads},
           {"n_layers", hf.integer("num_hidden_layers")},
           {"hidden_dim", hf.integer("intermediate_size")},
           {"n_kv_groups", hf.integer("num_key_value_heads", heads)},
           {"rope_base", hf.number("rope_theta", 10'000.0)},
           {"dtype", hf.dtype()},
           {"rope_freq", rope_freq}},
          hf.flag("tie_word_embeddings", false)};
}

Llama3ModelImpl::Llama3ModelImpl(const Llama3Config& c) : RopeDecoderImpl(llama3_spec(c)), config(c) {}

nlohmann::json Llama3ModelImpl::config_json() const {
  auto json = fields_to_json(config, llama3_fields());
  json["rope_freq"] = config.rope_freq ? fields_to_json(*config.rope_freq, rope_freq_fields()) : nlohmann::json();
  return json;
}

nlohmann::json Llama3ModelImpl::hf_config() const {
  auto json = hf_config_common("LlamaForCausalLM", "llama");
  json.update({{"intermediate_size", config.hidden_dim},
               {"hidden_act", "silu"},
               {"mlp_bias", false},
               {"rope_theta", config.rope_base},
               {"rope_scaling", nullptr}});
  if (const auto& f = config.rope_freq) {
    json["rope_scaling"] = {{"factor", f->factor},
                            {"low_freq_factor", f->low_freq_factor},
                            {"high_freq_factor", f->high_freq_factor},
                            {"original_max_position_embeddings", f->original_context_length},
                            {"rope_type", "llama3"}};
  }
  return json;
}

}  // namespace llm
