#include "llm/attention/kv_cache.h"

namespace llm {

std::pair<torch::Tensor, torch::Tensor> LayerKVCache::append(const torch::Tensor& new_keys,
                                                             const torch::Tensor& new_values) {
  keys = keys.defined() ? torch::cat({keys, new_keys}, 2) : new_keys;          // [b, kv_heads, t, hd]
  values = values.defined() ? torch::cat({values, new_values}, 2) : new_values;  // [b, kv_heads, t, hd]
  return {keys, values};
}

const torch::Tensor& LayerKVCache::append_latent(const torch::Tensor& new_latent) {
  latent = latent.defined() ? torch::cat({latent, new_latent}, 1) : new_latent;  // [b, t, latent_dim]
  return latent;
}

}  // namespace llm
