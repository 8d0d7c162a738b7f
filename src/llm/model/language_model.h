#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "llm/attention/kv_cache.h"
#include "llm/io/tensor_archive.h"
#include "llm/nn/linear.h"

namespace llm {

/// The sizes every family's model has, for messages and for what sizes its inputs.
struct ModelShape {
  int64_t vocab_size = 0;
  int64_t context_length = 0;
  int64_t emb_dim = 0;
  int64_t n_heads = 0;
  /// Key/value heads per layer: n_heads, or fewer with grouped-query attention.
  int64_t kv_heads = 0;
  int64_t n_layers = 0;
};

/// What the trainer, generation with its KV cache, the attention-head explorer,
/// checkpoints and weight loading ask of a language model, whatever its family: token
/// ids in, logits out, through blocks that a KV cache can follow. The lesson's GPT
/// (GPTModelImpl, lesson 4.6) is the first family; model_config.h lists the families
/// and docs/architecture.md shows how to add one.
struct LanguageModelImpl : torch::nn::Module {
  LanguageModelImpl() = default;
  /// `name`: the reference's class name, as print(model) shows it (module_repr).
  explicit LanguageModelImpl(std::string name) : torch::nn::Module(std::move(name)) {}

  /// Token ids [b, t] -> logits [b, t, vocab_size] (classes, once chapter 6's head
  /// replaced the output head).
  virtual torch::Tensor forward(const torch::Tensor& in_idx) = 0;
  /// Everything but the output head: the final norm's output [b, t, emb_dim], for a
  /// loss that applies the head itself (linear_cross_entropy) and for a classifier.
  virtual torch::Tensor forward_hidden(const torch::Tensor& in_idx) = 0;
  /// The logits of in_idx's tokens, placed after the cache.length() tokens whose keys
  /// and values `cache` holds, which it then also holds: a prompt first, then one token
  /// at a time. Together they must fit in the context length.
  virtual torch::Tensor forward_cached(const torch::Tensor& in_idx, KVCache& cache) = 0;
  /// An empty cache for forward_cached.
  KVCache new_cache() const { return KVCache(shape().n_layers); }

  virtual ModelShape shape() const = 0;
  /// Where the weights live (all on one device): where inputs must go.
  virtual torch::Device device() const = 0;

  /// The Linear from the final hidden state to the logits, and its replacement
  /// (chapter 6's classification head).
  virtual Linear head() const = 0;
  virtual void replace_head(Linear head) = 0;
  /// What chapter 6 trains besides the head with trainable "last-block": the last
  /// transformer block and the final norm.
  virtual std::vector<std::shared_ptr<torch::nn::Module>> last_block_and_final_norm() const = 0;

  /// The attention weights of every layer and head for one row of ids [1, t], in eval
  /// mode and without autograd, on the CPU: [n_layers, n_heads, t, t]. The model's mode
  /// is as before afterwards.
  virtual torch::Tensor attention_weights(const torch::Tensor& ids) = 0;

  /// The family's name, as a config's "family" key gives it (model_families()).
  virtual std::string_view family() const = 0;
  /// The family's settings the model was built from (ModelConfig::settings());
  /// model_config_json adds the family, so that a checkpoint can rebuild the model.
  virtual nlohmann::json config_json() const = 0;
  /// Loads a weights file of this family's formats (the lesson's state dict names, or
  /// Hugging Face's); `source` names it in errors, which also name the config. Each
  /// tensor is let go once copied in (load_state_dict): given with std::move, a file's
  /// pages go as the load goes on.
  virtual void load_weights(NamedTensors file, const std::string& source) = 0;
  /// The weights and config.json in Hugging Face's layout for this family; an
  /// llm::Error when the model has a shape that layout cannot hold.
  virtual NamedTensors hf_weights() const = 0;
  virtual nlohmann::json hf_config() const = 0;
};

/// A language model of any family, shared like LibTorch's module holders. A family's
/// holder (GPTModel) converts to it.
class LanguageModel : public torch::nn::ModuleHolder<LanguageModelImpl> {
 public:
  using torch::nn::ModuleHolder<LanguageModelImpl>::ModuleHolder;
  template <typename Family, typename = std::enable_if_t<std::is_base_of_v<LanguageModelImpl, Family>>>
  LanguageModel(const torch::nn::ModuleHolder<Family>& family)  // NOLINT: implicit, as shared_ptr converts
      : ModuleHolder(family.ptr()) {}
};

/// LanguageModelImpl::attention_weights for a model whose attention layers (holders
/// with record_weights and recorded_weights) are `layers`, one per block: a forward
/// pass in eval mode without autograd that records them. The mode is restored and
/// recording switched off again, however the forward pass ends.
template <typename Attention>
torch::Tensor record_attention_weights(LanguageModelImpl& model, std::vector<Attention>& layers,
                                       const torch::Tensor& ids) {
  struct Restore {
    LanguageModelImpl& model;
    std::vector<Attention>& layers;
    bool was_training;
    ~Restore() {
      for (auto& att : layers) {
        att->record_weights = false;
        att->recorded_weights = torch::Tensor();
      }
      model.train(was_training);
    }
  } restore{model, layers, model.is_training()};

  torch::NoGradGuard no_grad;
  model.eval();
  for (auto& att : layers) att->record_weights = true;
  model.forward(ids.to(model.device()));
  std::vector<torch::Tensor> weights;
  for (const auto& att : layers) weights.push_back(att->recorded_weights[0].to(torch::kCPU, torch::kFloat));
  return torch::stack(weights);  // [n_layers, n_heads, t, t]
}

/// Whether an output head's weight is the token embeddings' (weight tying: GPT-2's, and
/// config.json's tie_word_embeddings): the same shape and the same values.
bool is_tied(const torch::Tensor& head_weight, const torch::Tensor& embedding_weight);

/// Throws llm::Error, naming `model`, unless `ids` is a 2-D int64 tensor [batch, tokens]
/// of 1..context_length tokens, each in 0..vocab_size-1.
void check_token_ids(const torch::Tensor& ids, const ModelShape& shape, std::string_view model);

/// Throws llm::Error, naming `model`, unless `cache` has one layer per block and room
/// for `tokens` more within the context length.
void check_cache_room(const KVCache& cache, int64_t tokens, const ModelShape& shape, std::string_view model);

/// Writes hf_weights() as safetensors to `path`, and hf_config() to config.json beside
/// it, each atomically: a folder transformers opens.
void save_hugging_face(const std::filesystem::path& path, const LanguageModelImpl& model);

}  // namespace llm
