#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace llm {

/// The keys and values one attention layer has computed so far, [b, kv_heads, t, hd]:
/// kv_heads is num_heads for multi-head attention and num_kv_groups for grouped-query
/// attention, whose cache is that much smaller. Undefined until the first token.
/// Multi-head latent attention caches one latent vector per token instead, [b, t,
/// latent_dim], and leaves keys and values empty. Sliding-window attention keeps only
/// the last `window` positions (a rolling cache), so a cache may hold fewer tokens than
/// it has seen.
struct LayerKVCache {
  torch::Tensor keys, values;
  torch::Tensor latent;

  /// Appends this step's keys and values ([b, kv_heads, t_new, hd]) and returns the
  /// keys and values this step's queries attend to: all of them, or with a window
  /// (> 0) the last window + t_new - 1, of which only the last `window` are kept.
  std::pair<torch::Tensor, torch::Tensor> append(const torch::Tensor& new_keys, const torch::Tensor& new_values,
                                                 int64_t window = 0);
  /// Appends this step's latents ([b, t_new, latent_dim]) and returns all.
  const torch::Tensor& append_latent(const torch::Tensor& new_latent);
  /// Tokens seen: the position of the next one.
  int64_t length() const { return seen; }
  /// Tokens held: length(), or at most the window of a rolling cache.
  int64_t held() const { return keys.defined() ? keys.size(2) : latent.defined() ? latent.size(1) : 0; }

 private:
  int64_t seen = 0;
};

/// One LayerKVCache per transformer block: what lets generation feed the model only
/// the newest token instead of the whole context at every step.
struct KVCache {
  explicit KVCache(int64_t n_layers) : layers(n_layers) {}
  int64_t length() const { return layers.empty() ? 0 : layers.front().length(); }
  void clear() {
    for (auto& layer : layers) layer = {};
  }
  std::vector<LayerKVCache> layers;
};

}  // namespace llm
