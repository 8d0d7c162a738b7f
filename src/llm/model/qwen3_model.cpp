#include "llm/model/qwen3_model.h"

#include <fmt/format.h>

#include "llm/nn/gated_feed_forward.h"
#include "llm/nn/moe_feed_forward.h"
#include "llm/util/error.h"
#include "llm/util/json.h"

namespace llm {
namespace {

const std::vector<ConfigField<Qwen3Config>>& qwen3_fields() {
  static const std::vector<ConfigField<Qwen3Config>> kFields = {
      {"vocab_size", &Qwen3Config::vocab_size, "Token ids the model knows"},
      {"context_length", &Qwen3Config::context_length, "Most tokens the model sees at once"},
      {"emb_dim", &Qwen3Config::emb_dim, "Embedding width"},
      {"n_heads", &Qwen3Config::n_heads, "Attention heads per layer"},
      {"n_layers", &Qwen3Config::n_layers, "Transformer blocks"},
      {"hidden_dim", &Qwen3Config::hidden_dim, "The feed-forward's inner width"},
      {"head_dim", &Qwen3Config::head_dim, "Width of each attention head"},
      {"qk_norm", &Qwen3Config::qk_norm, "RMSNorm on each query and key head"},
      {"n_kv_groups", &Qwen3Config::n_kv_groups, "Key/value groups of grouped-query attention"},
      {"rope_base", &Qwen3Config::rope_base, "RoPE's theta base"},
      {"dtype", &Qwen3Config::dtype, "float32, bfloat16 or float16"},
      {"num_experts", &Qwen3Config::num_experts, "Experts per mixture-of-experts layer (0: dense)"},
      {"num_experts_per_tok", &Qwen3Config::num_experts_per_tok, "Experts each token is routed to"},
      {"moe_intermediate_size", &Qwen3Config::moe_intermediate_size, "Each expert's inner width"},
  };
  return kFields;
}

DecoderSizes sizes(const Qwen3Config& c) {
  return {c.vocab_size, c.context_length, c.emb_dim, c.n_heads, c.n_layers, c.n_kv_groups, c.head_dim};
}

void validate(const Qwen3Config& c, std::string_view source) {
  check_decoder_sizes(sizes(c), source);
  if (c.moe()) {
    if (c.num_experts_per_tok <= 0 || c.num_experts_per_tok > c.num_experts || c.moe_intermediate_size <= 0) {
      throw Error(fmt::format("config '{}': with num_experts {}, num_experts_per_tok must be in 1..{} and "
                              "moe_intermediate_size positive",
                              source, c.num_experts, c.num_experts));
    }
  } else if (c.num_experts < 0 || c.hidden_dim <= 0) {
    throw Error(fmt::format("config '{}': num_experts must be 0 or more and hidden_dim positive", source));
  }
  if (!(c.rope_base > 1.0)) throw Error(fmt::format("config '{}': rope_base must be above 1, got {}", source, c.rope_base));
  dtype_named(c.dtype, source);
}

DecoderSpec qwen3_spec(const Qwen3Config& c) {
  DecoderSpec spec;
  spec.shape = sizes(c).shape();
  spec.name = "Qwen3";
  spec.class_name = "Qwen3Model";
  spec.blocks_name = "trf_blocks";
  spec.dtype = dtype_named(c.dtype, "the model");
  spec.final_norm = {RMSNormStyle::kQwen3, 1e-6, torch::kFloat};
  spec.ropes = {compute_rope_params(c.head_dim, c.rope_base, c.context_length)};
  DecoderBlockOptions block;
  block.attention = {c.emb_dim, c.n_heads, c.n_kv_groups, c.head_dim,
                     c.qk_norm ? std::optional(RMSNormStyle::kQwen3) : std::nullopt, std::nullopt, false, spec.dtype};
  block.norm = spec.final_norm;
  block.norms = {"norm1", "", "norm2", ""};
  spec.blocks.assign(static_cast<size_t>(c.n_layers), block);
  spec.feed_forward = [c, dtype = spec.dtype](size_t) {
    return c.moe() ? torch::nn::AnyModule(MoEFeedForward(c.emb_dim, c.num_experts, c.num_experts_per_tok,
                                                         c.moe_intermediate_size, dtype))
                   : torch::nn::AnyModule(GatedFeedForward(c.emb_dim, c.hidden_dim, GateActivation::kSiLU, dtype));
  };
  return spec;
}

}  // namespace

double Qwen3Config::parameters() const {
  const double e = static_cast<double>(emb_dim), hd = static_cast<double>(head_dim);
  const double q = static_cast<double>(n_heads) * hd, kv = static_cast<double>(n_kv_groups) * hd;
  const double attention = 2 * e * q + 2 * e * kv + (qk_norm ? 2 * hd : 0);
  const double ff = moe() ? static_cast<double>(num_experts) * (e + 3 * e * static_cast<double>(moe_intermediate_size))
                          : 3 * e * static_cast<double>(hidden_dim);
  return 2 * static_cast<double>(vocab_size) * e + static_cast<double>(n_layers) * (attention + ff + 2 * e) + e;
}

ModelShape Qwen3ModelImpl::check_config(const nlohmann::json& settings, std::string_view source) {
  const auto c = config_from_json(settings, source);
  check_decoder_memory(c.parameters(), c.dtype, sizes(c), 1, "Qwen3", source);
  return sizes(c).shape();
}

Qwen3Config Qwen3ModelImpl::config_from_json(const nlohmann::json& settings, std::string_view source) {
  Qwen3Config config;
  auto rest = settings;
  const auto head_dim = rest.find("head_dim");
  const bool derived = head_dim != rest.end() && head_dim->is_null();  // the course's None: emb_dim / n_heads
  if (derived) rest.erase(head_dim);
  read_fields(rest, qwen3_fields(), config, "config", source);
  if (derived) {
    if (config.n_heads <= 0 || config.emb_dim % config.n_heads != 0) {
      throw Error(fmt::format("config '{}': with head_dim null, n_heads ({}) must divide emb_dim ({})", source,
                              config.n_heads, config.emb_dim));
    }
    config.head_dim = config.emb_dim / config.n_heads;
  }
  validate(config, source);
  return config;
}

std::string Qwen3ModelImpl::hf_layout_problem(const Qwen3Config& config) {
  if (config.qk_norm) return {};
  return "Hugging Face's Qwen3 normalises queries and keys; this config has qk_norm false";
}

const std::vector<std::string_view>& Qwen3ModelImpl::hf_architectures() {
  static const std::vector<std::string_view> kNames = {"Qwen3ForCausalLM", "Qwen3MoeForCausalLM"};
  return kNames;
}

// transformers' Qwen3Config and Qwen3MoeConfig, as the course's QWEN_CONFIG_06_B and
// QWEN3_CONFIG_30B_A3B mirror them.
HfSettings Qwen3ModelImpl::settings_from_hf(const HfConfig& hf) {
  hf.require("hidden_act", {"silu"}, "another activation");
  hf.require("attention_bias", {false}, "biases in the attention");
  hf.require("rms_norm_eps", {1e-6}, "another RMSNorm eps");
  hf.require("rope_scaling", {nullptr}, "RoPE scaling");
  hf.require("use_sliding_window", {false}, "sliding-window attention");
  const int64_t heads = hf.integer("num_attention_heads"), width = hf.integer("hidden_size");
  nlohmann::json settings = {{"vocab_size", hf.integer("vocab_size")},
                             {"context_length", hf.integer("max_position_embeddings")},
                             {"emb_dim", width},
                             {"n_heads", heads},
                             {"n_layers", hf.integer("num_hidden_layers")},
                             {"head_dim", hf.has("head_dim") || heads <= 0 ? hf.integer("head_dim") : width / heads},
                             {"qk_norm", true},
                             {"n_kv_groups", hf.integer("num_key_value_heads", heads)},
                             {"rope_base", hf.number("rope_theta", 10'000.0)},
                             {"dtype", hf.dtype()}};
  if (hf.integer("num_experts", 0) > 0) {
    hf.require("norm_topk_prob", {true}, "unnormalised top-k router weights");
    hf.require("decoder_sparse_step", {1}, "dense layers between the experts' layers");
    hf.require("mlp_only_layers", {nlohmann::json::array()}, "dense layers between the experts' layers");
    settings["num_experts"] = hf.integer("num_experts");
    settings["num_experts_per_tok"] = hf.integer("num_experts_per_tok");
    settings["moe_intermediate_size"] = hf.integer("moe_intermediate_size");
  } else {
    settings["hidden_dim"] = hf.integer("intermediate_size");
  }
  return {settings, hf.flag("tie_word_embeddings", false)};
}

Qwen3ModelImpl::Qwen3ModelImpl(const Qwen3Config& c) : RopeDecoderImpl(qwen3_spec(c)), config(c) {}

nlohmann::json Qwen3ModelImpl::config_json() const { return fields_to_json(config, qwen3_fields()); }

nlohmann::json Qwen3ModelImpl::hf_config() const {
  if (const auto problem = hf_layout_problem(config); !problem.empty()) throw Error(problem);
  auto json = config.moe() ? hf_config_common("Qwen3MoeForCausalLM", "qwen3_moe")
                           : hf_config_common("Qwen3ForCausalLM", "qwen3");
  json.update({{"hidden_act", "silu"}, {"rope_theta", config.rope_base}, {"rope_scaling", nullptr},
               {"use_sliding_window", false}});
  if (config.moe()) {
    json.update({{"num_experts", config.num_experts},
                 {"num_experts_per_tok", config.num_experts_per_tok},
                 {"moe_intermediate_size", config.moe_intermediate_size},
                 {"norm_topk_prob", true},
                 {"decoder_sparse_step", 1},
                 {"mlp_only_layers", nlohmann::json::array()}});
  } else {
    json["intermediate_size"] = config.hidden_dim;
  }
  return json;
}

}  // namespace llm
