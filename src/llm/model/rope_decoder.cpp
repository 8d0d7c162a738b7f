#include "llm/model/rope_decoder.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "llm/io/state_dict.h"
#include "llm/util/error.h"
#include "llm/util/memory.h"

namespace llm {
namespace {

RMSNorm norm_or_none(torch::nn::Module& block, const std::string& name, int64_t dim, const NormOptions& o) {
  if (name.empty()) return RMSNorm(nullptr);
  return block.register_module(name, RMSNorm(dim, o.eps, o.style, o.dtype));
}

torch::Tensor normed(RMSNorm& norm, const torch::Tensor& x) { return norm ? norm(x) : x; }

// The course draws nn.Embedding's weight normal(0, 1) on a tensor of the model's dtype.
torch::nn::Embedding embedding(int64_t vocab_size, int64_t emb_dim, torch::Dtype dtype) {
  return torch::nn::Embedding(
      torch::nn::EmbeddingOptions(vocab_size, emb_dim)._weight(torch::empty({vocab_size, emb_dim}, dtype).normal_()));
}

// Hugging Face's name of a block's tensor, by its name in the block here (the course's
// load_weights_into_llama, _qwen and the Gemma 3 notebook's load_weights_into_gemma
// read these).
std::optional<std::string> hf_block_name(const std::string& name) {
  static const std::map<std::string, std::string> kNames = {
      {"att.W_query.weight", "self_attn.q_proj.weight"},
      {"att.W_key.weight", "self_attn.k_proj.weight"},
      {"att.W_value.weight", "self_attn.v_proj.weight"},
      {"att.out_proj.weight", "self_attn.o_proj.weight"},
      {"att.q_norm.scale", "self_attn.q_norm.weight"},
      {"att.k_norm.scale", "self_attn.k_norm.weight"},
      {"ff.fc1.weight", "mlp.gate_proj.weight"},
      {"ff.fc2.weight", "mlp.up_proj.weight"},
      {"ff.fc3.weight", "mlp.down_proj.weight"},
      {"ff.gate.weight", "mlp.gate.weight"},
      {"norm1.weight", "input_layernorm.weight"},
      {"norm1.scale", "input_layernorm.weight"},
      {"norm2.weight", "post_attention_layernorm.weight"},
      {"norm2.scale", "post_attention_layernorm.weight"},
      {"input_layernorm.scale", "input_layernorm.weight"},
      {"post_attention_layernorm.scale", "post_attention_layernorm.weight"},
      {"pre_feedforward_layernorm.scale", "pre_feedforward_layernorm.weight"},
      {"post_feedforward_layernorm.scale", "post_feedforward_layernorm.weight"},
  };
  if (const auto known = kNames.find(name); known != kNames.end()) return known->second;
  // A mixture of experts: ff.fc1.<e>.weight is expert e's gate_proj, fc2 up_proj, fc3 down_proj.
  static const std::map<std::string, std::string> kExperts = {
      {"ff.fc1.", "gate_proj"}, {"ff.fc2.", "up_proj"}, {"ff.fc3.", "down_proj"}};
  for (const auto& [prefix, projection] : kExperts) {
    if (name.rfind(prefix, 0) != 0) continue;
    const auto expert = name.substr(prefix.size(), name.size() - prefix.size() - std::string_view(".weight").size());
    return fmt::format("mlp.experts.{}.{}.weight", expert, projection);
  }
  return std::nullopt;
}

}  // namespace

std::string hf_tensor_name(const std::string& key, const std::string& blocks_name) {
  if (key == "tok_emb.weight") return "model.embed_tokens.weight";
  if (key == "final_norm.weight" || key == "final_norm.scale") return "model.norm.weight";
  if (key == "out_head.weight") return "lm_head.weight";
  const auto prefix = blocks_name + ".";
  if (key.rfind(prefix, 0) == 0) {
    const auto dot = key.find('.', prefix.size());
    if (dot != std::string::npos) {
      if (const auto name = hf_block_name(key.substr(dot + 1))) {
        return fmt::format("model.layers.{}.{}", key.substr(prefix.size(), dot - prefix.size()), *name);
      }
    }
  }
  throw Error(fmt::format("no Hugging Face name for '{}'", key));
}

void check_decoder_sizes(const DecoderSizes& s, std::string_view source) {
  const auto positive = [&](const char* key, int64_t value) {
    if (value <= 0) throw Error(fmt::format("config '{}': {} must be positive, got {}", source, key, value));
  };
  positive("vocab_size", s.vocab_size);
  positive("context_length", s.context_length);
  positive("emb_dim", s.emb_dim);
  positive("n_heads", s.n_heads);
  positive("n_layers", s.n_layers);
  positive("n_kv_groups", s.n_kv_groups);
  positive("head_dim", s.head_dim);
  if (s.n_heads % s.n_kv_groups != 0) {
    throw Error(fmt::format("config '{}': n_kv_groups ({}) must divide n_heads ({})", source, s.n_kv_groups, s.n_heads));
  }
  if (s.head_dim % 2 != 0) {
    throw Error(fmt::format("config '{}': head_dim must be even (RoPE rotates pairs), got {}", source, s.head_dim));
  }
}

torch::Dtype dtype_named(const std::string& name, std::string_view source) {
  if (name == "float32") return torch::kFloat;
  if (name == "bfloat16") return torch::kBFloat16;
  if (name == "float16") return torch::kHalf;
  throw Error(fmt::format("config '{}': dtype must be \"float32\", \"bfloat16\" or \"float16\", got \"{}\"", source,
                          name));
}

void check_decoder_memory(double parameters, const std::string& dtype, const DecoderSizes& s, int rope_tables,
                          std::string_view family, std::string_view source) {
  const double bytes = parameters * static_cast<double>(c10::elementSize(dtype_named(dtype, source))) +
                       8.0 * rope_tables * static_cast<double>(s.context_length) * static_cast<double>(s.head_dim);
  check_fits_in_memory(bytes, fmt::format("config '{}': a {} of {:.3g} parameters in {}", source, family, parameters, dtype));
}

DecoderBlockImpl::DecoderBlockImpl(const DecoderBlockOptions& o, const std::function<torch::nn::AnyModule()>& make_ff)
    : torch::nn::Module("TransformerBlock"), rope(o.rope), window(o.window) {
  att = register_module("att", RopeAttention(o.attention));
  ff = make_ff();
  register_module("ff", ff.ptr());
  const int64_t dim = o.attention.d_in;
  pre_att = norm_or_none(*this, o.norms[0], dim, o.norm);
  post_att = norm_or_none(*this, o.norms[1], dim, o.norm);
  pre_ff = norm_or_none(*this, o.norms[2], dim, o.norm);
  post_ff = norm_or_none(*this, o.norms[3], dim, o.norm);
}

torch::Tensor DecoderBlockImpl::feed_forward(const torch::Tensor& x) {
  return x + normed(post_ff, ff.forward(normed(pre_ff, x)));  // [b, t, emb_dim]
}

torch::Tensor DecoderBlockImpl::forward(const torch::Tensor& x, const std::vector<RopeTables>& ropes) {
  return feed_forward(x + normed(post_att, att(normed(pre_att, x), ropes[rope], window)));
}

torch::Tensor DecoderBlockImpl::forward_cached(const torch::Tensor& x, const std::vector<RopeTables>& ropes,
                                               LayerKVCache& cache) {
  return feed_forward(x + normed(post_att, att->forward_cached(normed(pre_att, x), ropes[rope], cache, window)));
}

int64_t RopeDecoderImpl::rope_table_elements() const {
  int64_t elements = 0;
  for (const auto& rope : spec_.ropes) elements += rope.cos.numel() + rope.sin.numel();
  return elements;
}

RopeDecoderImpl::RopeDecoderImpl(DecoderSpec spec) : LanguageModelImpl(spec.class_name), spec_(std::move(spec)) {
  const auto& s = spec_.shape;
  tok_emb = register_module("tok_emb", embedding(s.vocab_size, s.emb_dim, spec_.dtype));
  blocks = register_module(spec_.blocks_name, ModuleListOf<DecoderBlock>());
  for (size_t i = 0; i < spec_.blocks.size(); ++i) {
    blocks->push_back(DecoderBlock(spec_.blocks[i], [&] { return spec_.feed_forward(i); }));
  }
  final_norm = register_module("final_norm", RMSNorm(s.emb_dim, spec_.final_norm.eps, spec_.final_norm.style,
                                                     spec_.final_norm.dtype));
  out_head = register_module("out_head", Linear(s.emb_dim, s.vocab_size, /*bias=*/false, spec_.dtype));
}

const std::vector<RopeTables>& RopeDecoderImpl::ropes_for(const torch::Tensor& x) {
  for (auto& rope : spec_.ropes) {
    if (rope.cos.device() != x.device()) rope = {rope.cos.to(x.device()), rope.sin.to(x.device())};
  }
  return spec_.ropes;
}

torch::Tensor RopeDecoderImpl::embed(const torch::Tensor& in_idx) {
  const auto x = tok_emb(in_idx);  // [b, t, emb_dim]
  return spec_.embedding_scale == 1.0 ? x : x * spec_.embedding_scale;
}

torch::Tensor RopeDecoderImpl::forward(const torch::Tensor& in_idx) {
  return out_head(forward_hidden(in_idx).to(spec_.dtype));  // [b, t, vocab_size]
}

torch::Tensor RopeDecoderImpl::forward_hidden(const torch::Tensor& in_idx) {
  check_token_ids(in_idx, spec_.shape, spec_.name);
  auto x = embed(in_idx);
  const auto& ropes = ropes_for(x);
  for (auto& block : *blocks) x = block(x, ropes);  // [b, t, emb_dim]
  return final_norm(x);
}

torch::Tensor RopeDecoderImpl::forward_cached(const torch::Tensor& in_idx, KVCache& cache) {
  check_token_ids(in_idx, spec_.shape, spec_.name);
  check_cache_room(cache, in_idx.size(1), spec_.shape, spec_.name);
  auto x = embed(in_idx);
  const auto& ropes = ropes_for(x);
  for (size_t i = 0; i < blocks->size(); ++i) x = (*blocks)[i]->forward_cached(x, ropes, cache.layers[i]);
  return out_head->forward_matvec(final_norm(x).to(spec_.dtype));  // [b, t, vocab_size]
}

void RopeDecoderImpl::replace_head(Linear head) { out_head = replace_module("out_head", std::move(head)); }

std::vector<std::shared_ptr<torch::nn::Module>> RopeDecoderImpl::last_block_and_final_norm() const {
  return {blocks->back().ptr(), final_norm.ptr()};
}

torch::Tensor RopeDecoderImpl::attention_weights(const torch::Tensor& ids) {
  std::vector<RopeAttention> attentions;
  for (const auto& block : *blocks) attentions.push_back(block->att);
  return record_attention_weights(*this, attentions, ids);
}

void RopeDecoderImpl::load_weights(NamedTensors file, const std::string& source) {
  std::unordered_map<std::string, const torch::Tensor*> hf;
  for (const auto& [name, tensor] : file) hf.emplace(name, &tensor);
  if (hf.count("model.embed_tokens.weight") == 0) {  // the course's names
    load_state_dict(*this, std::move(file), source);
    return;
  }
  NamedTensors renamed;
  std::set<std::string> used;
  for (const auto& [key, tensor] : state_dict(*this)) {
    const auto name = hf_tensor_name(key, spec_.blocks_name);
    auto found = hf.find(name);
    if (found == hf.end() && key == "out_head.weight") found = hf.find("model.embed_tokens.weight");  // tied
    if (found == hf.end()) {
      throw Error(fmt::format("{}: Hugging Face's {} layout needs '{}' (for {}); the file lacks it", source, spec_.name,
                              name, key));
    }
    used.insert(found->first);
    renamed.emplace_back(key, *found->second);
  }
  for (const auto& [name, tensor] : file) {
    if (used.count(name) == 0) throw Error(fmt::format("{}: unexpected key '{}' for {}", source, name, spec_.name));
  }
  hf.clear();
  file.clear();  // `renamed` holds the tensors now, and lets each go once loaded
  load_state_dict(*this, std::move(renamed), source);
}

namespace {

std::string dtype_name(torch::Dtype dtype) {
  return dtype == torch::kBFloat16 ? "bfloat16" : dtype == torch::kHalf ? "float16" : "float32";
}

}  // namespace

NamedTensors RopeDecoderImpl::hf_weights() const {
  const bool tied = is_tied(out_head->weight, tok_emb->weight);
  NamedTensors out;
  for (const auto& [key, tensor] : state_dict(*this)) {
    if (tied && key == "out_head.weight") continue;
    out.emplace_back(hf_tensor_name(key, spec_.blocks_name), tensor.detach().contiguous());
  }
  return out;
}

nlohmann::json RopeDecoderImpl::hf_config_common(std::string_view architecture, std::string_view model_type) const {
  const auto& s = spec_.shape;
  return {{"architectures", {architecture}},
          {"model_type", model_type},
          {"vocab_size", s.vocab_size},
          {"max_position_embeddings", s.context_length},
          {"hidden_size", s.emb_dim},
          {"num_attention_heads", s.n_heads},
          {"num_hidden_layers", s.n_layers},
          {"num_key_value_heads", s.kv_heads},
          {"head_dim", spec_.ropes.front().cos.size(1)},
          {"attention_bias", false},
          {"rms_norm_eps", spec_.final_norm.eps},
          {"tie_word_embeddings", is_tied(out_head->weight, tok_emb->weight)},
          {"torch_dtype", dtype_name(spec_.dtype)}};
}

}  // namespace llm
