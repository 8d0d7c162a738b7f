#include "llm/model/gpt_weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "llm/io/safetensors.h"
#include "llm/io/state_dict.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool is_mask(const std::string& name) {
  const std::string suffix = ".att.mask";
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string describe(const GPTConfig& c) {
  return fmt::format("the config's vocab_size {}, context_length {}, emb_dim {}, n_heads {}, n_layers {}, qkv_bias {}",
                     c.vocab_size, c.context_length, c.emb_dim, c.n_heads, c.n_layers, c.qkv_bias);
}

// h.N.attn.bias and h.N.attn.masked_bias: the causal mask, which older files hold.
bool is_mask_buffer(const std::string& key) {
  if (!starts_with(key, "h.")) return false;
  const size_t digits = key.find_first_not_of("0123456789", 2);
  if (digits == 2 || digits == std::string::npos) return false;
  const auto rest = key.substr(digits);
  return rest == ".attn.bias" || rest == ".attn.masked_bias";
}

// Hugging Face's GPT-2 layout, one block's or the model's key at a time.
class HfReader {
 public:
  HfReader(const NamedTensors& file, const GPTConfig& config, const std::string& source)
      : config_(config), source_(source) {
    const bool prefixed = has_tensor(file, "transformer.wte.weight");
    for (const auto& [name, tensor] : file) {
      const std::string prefix = "transformer.";
      const auto key = prefixed && starts_with(name, prefix) ? name.substr(prefix.size()) : name;
      if (!tensors_.emplace(key, tensor).second) fail(key, "appears twice (with and without the prefix)");
    }
  }

  // The tensor `key`, which must have `shape`; it is then used.
  torch::Tensor take(const std::string& key, std::vector<int64_t> shape) {
    const auto it = tensors_.find(key);
    if (it == tensors_.end()) fail(key, "is missing");
    if (!it->second.sizes().equals(shape)) {
      fail(key, fmt::format("has shape [{}], expected [{}]", fmt::join(it->second.sizes(), ", "), fmt::join(shape, ", ")));
    }
    if (!it->second.is_floating_point()) fail(key, fmt::format("is {}, expected floating point", c10::toString(it->second.scalar_type())));
    used_.insert(key);
    return it->second;
  }

  bool has(const std::string& key) const { return tensors_.count(key) != 0; }

  // Every key must have been used, or be one of the causal-mask buffers.
  void check_all_used() const {
    for (const auto& [key, tensor] : tensors_) {
      if (used_.count(key) == 0 && !is_mask_buffer(key)) fail(key, "is not part of such a GPT-2");
    }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("weights '{}' (Hugging Face GPT-2 layout): '{}' {}; {}", source_, key, what, describe(config_)));
  }

 private:
  const GPTConfig& config_;
  const std::string& source_;
  std::map<std::string, torch::Tensor> tensors_;
  std::set<std::string> used_;
};

}  // namespace

NamedTensors from_hf_gpt2(const NamedTensors& file, const GPTConfig& c, const std::string& source) {
  HfReader hf(file, c, source);
  if (c.attention == "gqa") hf.fail("h.0.attn.c_attn.weight", "holds multi-head attention, but the config is gqa");
  const int64_t e = c.emb_dim;
  NamedTensors out = {{"tok_emb.weight", hf.take("wte.weight", {c.vocab_size, e})},
                      {"pos_emb.weight", hf.take("wpe.weight", {c.context_length, e})}};
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const auto h = fmt::format("h.{}.", i), ours = fmt::format("trf_blocks.{}.", i);
    const auto qkv = hf.take(h + "attn.c_attn.weight", {e, 3 * e}).chunk(3, 1);  // [e, e] each, [in, out]
    out.insert(out.end(), {{ours + "att.W_query.weight", qkv[0].t()},
                           {ours + "att.W_key.weight", qkv[1].t()},
                           {ours + "att.W_value.weight", qkv[2].t()}});
    const bool bias_given = hf.has(h + "attn.c_attn.bias");
    if (c.qkv_bias || bias_given) {
      const auto bias = hf.take(h + "attn.c_attn.bias", {3 * e});
      if (!c.qkv_bias) {
        if (bias.count_nonzero().item<int64_t>() != 0) {
          hf.fail(h + "attn.c_attn.bias", "holds biases, but the config has qkv_bias false (GPT-2 has them: use "
                                          "configs/gpt2-124m.json or another size's)");
        }
      } else {
        const auto parts = bias.chunk(3);
        out.insert(out.end(), {{ours + "att.W_query.bias", parts[0]},
                               {ours + "att.W_key.bias", parts[1]},
                               {ours + "att.W_value.bias", parts[2]}});
      }
    }
    out.insert(out.end(), {{ours + "att.out_proj.weight", hf.take(h + "attn.c_proj.weight", {e, e}).t()},
                           {ours + "att.out_proj.bias", hf.take(h + "attn.c_proj.bias", {e})},
                           {ours + "ff.layers.0.weight", hf.take(h + "mlp.c_fc.weight", {e, 4 * e}).t()},
                           {ours + "ff.layers.0.bias", hf.take(h + "mlp.c_fc.bias", {4 * e})},
                           {ours + "ff.layers.2.weight", hf.take(h + "mlp.c_proj.weight", {4 * e, e}).t()},
                           {ours + "ff.layers.2.bias", hf.take(h + "mlp.c_proj.bias", {e})},
                           {ours + "norm1.scale", hf.take(h + "ln_1.weight", {e})},
                           {ours + "norm1.shift", hf.take(h + "ln_1.bias", {e})},
                           {ours + "norm2.scale", hf.take(h + "ln_2.weight", {e})},
                           {ours + "norm2.shift", hf.take(h + "ln_2.bias", {e})}});
  }
  out.insert(out.end(), {{"final_norm.scale", hf.take("ln_f.weight", {e})},
                         {"final_norm.shift", hf.take("ln_f.bias", {e})},
                         {"out_head.weight", hf.has("lm_head.weight") ? hf.take("lm_head.weight", {c.vocab_size, e})
                                                                      : hf.take("wte.weight", {c.vocab_size, e})}});
  hf.check_all_used();
  return out;
}

void load_gpt_weights(GPTModelImpl& model, NamedTensors file, const std::string& source) {
  const auto& config = model.config;
  NamedTensors weights;
  std::string what = source;
  if (has_tensor(file, "wte.weight") || has_tensor(file, "transformer.wte.weight")) {
    weights = from_hf_gpt2(file, config, source);
  } else {
    weights = with_prefix_removed(file, "model_state_dict/");  // lesson 5.4's wrapper
    if (weights.empty()) {
      weights = std::move(file);
    } else {
      what += ": model_state_dict";
    }
  }
  for (const auto& [name, buffer] : state_dict(model)) {
    if (!has_tensor(weights, name) && is_mask(name)) weights.emplace_back(name, buffer);  // rebuilt: the model's own mask
  }
  try {
    load_state_dict(model, std::move(weights), what);
  } catch (const Error& e) {
    throw Error(fmt::format("{}; {}", e.what(), describe(config)));
  }
}

std::string hf_gpt2_layout_problem(const GPTConfig& config) {
  if (config.attention != "mha") {
    const auto* variant = config.attention == "gqa"   ? "grouped-query attention"
                          : config.attention == "mla" ? "multi-head latent attention"
                                                      : "sliding-window attention";
    return fmt::format("Hugging Face's GPT-2 layout holds multi-head attention; this model uses {}", variant);
  }
  if (config.experts() > 0) return "Hugging Face's GPT-2 layout holds a dense feed-forward; this model has experts";
  if (config.resolved_hidden_dim() != 4 * config.emb_dim) {
    return fmt::format("Hugging Face's GPT-2 layout reads a feed-forward of 4 x emb_dim; this model's is {} wide",
                       config.resolved_hidden_dim());
  }
  return {};
}

NamedTensors to_hf_gpt2(const GPTModelImpl& model) {
  const auto& c = model.config;
  if (const auto problem = hf_gpt2_layout_problem(c); !problem.empty()) throw Error(problem);
  const auto weights = state_dict(model);
  const auto get = [&](const std::string& name) { return find_tensor(weights, name, "model").detach(); };
  const auto conv1d = [&](const std::string& name) { return get(name).t().contiguous(); };  // [in, out]
  NamedTensors out = {{"wte.weight", get("tok_emb.weight")}, {"wpe.weight", get("pos_emb.weight")}};
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const auto h = fmt::format("h.{}.", i), ours = fmt::format("trf_blocks.{}.", i);
    const auto bias = [&](const std::string& name) {
      return c.qkv_bias ? get(ours + "att." + name + ".bias") : torch::zeros({c.emb_dim});
    };
    out.insert(out.end(),
               {{h + "ln_1.weight", get(ours + "norm1.scale")},
                {h + "ln_1.bias", get(ours + "norm1.shift")},
                {h + "attn.c_attn.weight", torch::cat({conv1d(ours + "att.W_query.weight"), conv1d(ours + "att.W_key.weight"),
                                                       conv1d(ours + "att.W_value.weight")},
                                                      1)},
                {h + "attn.c_attn.bias", torch::cat({bias("W_query"), bias("W_key"), bias("W_value")})},
                {h + "attn.c_proj.weight", conv1d(ours + "att.out_proj.weight")},
                {h + "attn.c_proj.bias", get(ours + "att.out_proj.bias")},
                {h + "ln_2.weight", get(ours + "norm2.scale")},
                {h + "ln_2.bias", get(ours + "norm2.shift")},
                {h + "mlp.c_fc.weight", conv1d(ours + "ff.layers.0.weight")},
                {h + "mlp.c_fc.bias", get(ours + "ff.layers.0.bias")},
                {h + "mlp.c_proj.weight", conv1d(ours + "ff.layers.2.weight")},
                {h + "mlp.c_proj.bias", get(ours + "ff.layers.2.bias")}});
  }
  out.insert(out.end(), {{"ln_f.weight", get("final_norm.scale")}, {"ln_f.bias", get("final_norm.shift")}});
  if (!is_tied(get("out_head.weight"), get("tok_emb.weight"))) out.emplace_back("lm_head.weight", get("out_head.weight"));
  return out;
}

nlohmann::json hf_gpt2_config(const GPTModelImpl& model) {
  const auto& c = model.config;
  const bool tied = is_tied(model.out_head->weight, model.tok_emb->weight);
  return {{"architectures", {"GPT2LMHeadModel"}},
          {"model_type", "gpt2"},
          {"vocab_size", c.vocab_size},
          {"n_positions", c.context_length},
          {"n_ctx", c.context_length},
          {"n_embd", c.emb_dim},
          {"n_layer", c.n_layers},
          {"n_head", c.n_heads},
          {"n_inner", nullptr},
          {"activation_function", "gelu_new"},
          {"layer_norm_epsilon", 1e-5},
          {"embd_pdrop", c.emb_drop_rate()},
          {"attn_pdrop", c.attn_drop_rate()},
          {"resid_pdrop", c.shortcut_drop_rate()},
          {"bos_token_id", 50256},
          {"eos_token_id", 50256},
          {"tie_word_embeddings", tied},
          {"torch_dtype", "float32"}};
}

}  // namespace llm
