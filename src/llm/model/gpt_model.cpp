#include "llm/model/gpt_model.h"

#include <fmt/format.h>

#include <chrono>

#include "llm/attention/multi_head_attention.h"
#include "llm/model/gpt_weights.h"
#include "llm/util/error.h"

namespace llm {
namespace {

// The config's attention in block `layer`: lesson 3.6.2's multi-head attention, the
// course's grouped-query attention with n_kv_groups key/value heads, its multi-head
// latent attention, or its sliding-window attention (a window on the layers of its
// K:1 schedule).
AttentionHeads attention_layer(const GPTConfig& c, int64_t layer) {
  const auto options = AttentionOptions(c.emb_dim, c.emb_dim)
                           .context_length(c.context_length)
                           .num_heads(c.n_heads)
                           .dropout(c.attn_drop_rate())
                           .qkv_bias(c.qkv_bias);
  std::shared_ptr<AttentionHeadsImpl> attention;
  if (c.attention == "gqa") {
    attention = GroupedQueryAttention(AttentionOptions(options).num_kv_groups(c.n_kv_groups)).ptr();
  } else if (c.attention == "mla") {
    attention = MultiHeadLatentAttention(options, c.latent_dim.value_or(0)).ptr();
  } else if (c.attention == "swa") {
    attention = SlidingWindowAttention(options, c.window_of_layer(layer)).ptr();
  } else {
    attention = MultiHeadAttention(options).ptr();
  }
  return AttentionHeads(attention);
}

// The sizes a GPT of config `c` has, as the model interface gives them.
ModelShape shape_of(const GPTConfig& c) {
  return {c.vocab_size, c.context_length, c.emb_dim, c.n_heads, c.kv_heads(), c.n_layers};
}

}  // namespace

// The config's feed-forward: the lesson's, hidden_dim wide, or the course's mixture of
// experts.
torch::nn::AnyModule feed_forward_layer(const GPTConfig& c) {
  if (c.experts() > 0) {
    return torch::nn::AnyModule(
        MoEFeedForward(c.emb_dim, c.experts(), c.experts_per_token(), c.resolved_hidden_dim()));
  }
  return torch::nn::AnyModule(FeedForward(c.emb_dim, c.resolved_hidden_dim()));
}

TransformerBlockImpl::TransformerBlockImpl(const GPTConfig& c, int64_t layer) {
  att = register_module("att", attention_layer(c, layer));
  ff = feed_forward_layer(c);
  register_module("ff", ff.ptr());
  norm1 = register_module("norm1", LayerNorm(c.emb_dim));
  norm2 = register_module("norm2", LayerNorm(c.emb_dim));
  drop_shortcut = register_module("drop_shortcut", torch::nn::Dropout(c.shortcut_drop_rate()));
}

torch::Tensor TransformerBlockImpl::forward(torch::Tensor x) {
  x = x + drop_shortcut(att(norm1(x)));                // [b, t, emb_dim]
  return x + drop_shortcut(feed_forward(norm2(x)));    // [b, t, emb_dim]
}

torch::Tensor TransformerBlockImpl::forward_cached(torch::Tensor x, LayerKVCache& cache) {
  x = x + drop_shortcut(att->forward_cached(norm1(x), cache));  // [b, t, emb_dim]
  return x + drop_shortcut(feed_forward(norm2(x)));             // [b, t, emb_dim]
}

torch::Tensor TransformerBlockImpl::feed_forward(const torch::Tensor& x) {
  if (!ff_times) return ff.forward(x);
  const auto start = std::chrono::steady_clock::now();
  auto y = ff.forward(x);
  ff_times->total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++ff_times->calls;
  return y;
}

GPTModelImpl::GPTModelImpl(const GPTConfig& c) : config(c) {
  tok_emb = register_module("tok_emb", torch::nn::Embedding(c.vocab_size, c.emb_dim));
  pos_emb = register_module("pos_emb", torch::nn::Embedding(c.context_length, c.emb_dim));
  drop_emb = register_module("drop_emb", torch::nn::Dropout(c.emb_drop_rate()));
  trf_blocks = register_module("trf_blocks", ModuleListOf<TransformerBlock>());
  for (int64_t i = 0; i < c.n_layers; ++i) trf_blocks->push_back(TransformerBlock(c, i));
  final_norm = register_module("final_norm", LayerNorm(c.emb_dim));
  out_head = register_module("out_head", Linear(c.emb_dim, c.vocab_size, /*bias=*/false));
}

torch::Tensor GPTModelImpl::forward(const torch::Tensor& in_idx) {
  return out_head(forward_hidden(in_idx));  // [b, t, vocab_size]
}

torch::Tensor GPTModelImpl::forward_hidden(const torch::Tensor& in_idx) {
  check_token_ids(in_idx, shape(), "GPT");
  const int64_t t = in_idx.size(1);
  auto x = tok_emb(in_idx) + pos_emb(torch::arange(t, in_idx.options()));  // [b, t, emb_dim]
  x = drop_emb(x);
  for (auto& block : *trf_blocks) x = block(x);  // [b, t, emb_dim]
  return final_norm(x);                          // [b, t, emb_dim]
}

torch::Tensor GPTModelImpl::forward_cached(const torch::Tensor& in_idx, KVCache& cache) {
  check_token_ids(in_idx, shape(), "GPT");
  check_cache_room(cache, in_idx.size(1), shape(), "GPT");
  const int64_t past = cache.length(), t = in_idx.size(1);
  auto x = tok_emb(in_idx) + pos_emb(torch::arange(past, past + t, in_idx.options()));  // [b, t, emb_dim]
  x = drop_emb(x);
  for (size_t i = 0; i < trf_blocks->size(); ++i) {
    x = (*trf_blocks)[i]->forward_cached(x, cache.layers[i]);  // [b, t, emb_dim]
  }
  return out_head->forward_matvec(final_norm(x));  // [b, t, vocab_size]
}

ModelShape GPTModelImpl::check_config(const nlohmann::json& settings, std::string_view source) {
  return shape_of(config_from_json(settings, source));
}

GPTConfig GPTModelImpl::config_from_json(const nlohmann::json& settings, std::string_view source) {
  return gpt_config_from_json(settings, source);
}

std::string GPTModelImpl::hf_layout_problem(const GPTConfig& config) { return hf_gpt2_layout_problem(config); }

const std::vector<std::string_view>& GPTModelImpl::hf_architectures() {
  static const std::vector<std::string_view> kNames = {"GPT2LMHeadModel"};
  return kNames;
}

// transformers' GPT2Config: GPT-2 as lesson 5.5 loads it (qkv_bias, no dropout).
HfSettings GPTModelImpl::settings_from_hf(const HfConfig& hf) {
  hf.require("activation_function", {"gelu_new"}, "another activation");
  hf.require("layer_norm_epsilon", {1e-5}, "another LayerNorm eps");
  hf.require("n_inner", {nullptr, 4 * hf.integer("n_embd")}, "another feed-forward width than 4 x n_embd");
  hf.require("scale_attn_by_inverse_layer_idx", {false}, "attention scaled by the layer");
  hf.require("reorder_and_upcast_attn", {false}, "upcast attention");
  return {{{"vocab_size", hf.integer("vocab_size")},
           {"context_length", hf.integer("n_positions")},
           {"emb_dim", hf.integer("n_embd")},
           {"n_heads", hf.integer("n_head")},
           {"n_layers", hf.integer("n_layer")},
           {"drop_rate", 0.0},
           {"qkv_bias", true}},
          hf.flag("tie_word_embeddings", true)};
}

ModelShape GPTModelImpl::shape() const { return shape_of(config); }

void GPTModelImpl::replace_head(Linear head) { out_head = replace_module("out_head", std::move(head)); }

std::vector<std::shared_ptr<torch::nn::Module>> GPTModelImpl::last_block_and_final_norm() const {
  return {trf_blocks->back().ptr(), final_norm.ptr()};
}

torch::Tensor GPTModelImpl::attention_weights(const torch::Tensor& ids) {
  std::vector<AttentionHeads> attentions;
  for (const auto& block : *trf_blocks) attentions.push_back(block->att);
  return record_attention_weights(*this, attentions, ids);
}

nlohmann::json GPTModelImpl::config_json() const { return to_json(config); }

void GPTModelImpl::load_weights(NamedTensors file, const std::string& source) {
  load_gpt_weights(*this, std::move(file), source);
}

NamedTensors GPTModelImpl::hf_weights() const { return to_hf_gpt2(*this); }

nlohmann::json GPTModelImpl::hf_config() const { return hf_gpt2_config(*this); }

DummyGPTModelImpl::DummyGPTModelImpl(const GPTConfig& c) {
  tok_emb = register_module("tok_emb", torch::nn::Embedding(c.vocab_size, c.emb_dim));
  pos_emb = register_module("pos_emb", torch::nn::Embedding(c.context_length, c.emb_dim));
  drop_emb = register_module("drop_emb", torch::nn::Dropout(c.emb_drop_rate()));
  out_head = register_module("out_head", Linear(c.emb_dim, c.vocab_size, /*bias=*/false));
}

torch::Tensor DummyGPTModelImpl::forward(const torch::Tensor& in_idx) {
  const int64_t t = in_idx.size(1);
  const auto x = drop_emb(tok_emb(in_idx) + pos_emb(torch::arange(t, in_idx.options())));  // [b, t, emb_dim]
  return out_head(x);  // the placeholder blocks and norm pass x through; [b, t, vocab_size]
}

}  // namespace llm
