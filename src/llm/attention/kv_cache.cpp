#include "llm/attention/kv_cache.h"

namespace llm {

std::pair<torch::Tensor, torch::Tensor> LayerKVCache::append(const torch::Tensor& new_keys,
                                                             const torch::Tensor& new_values) {
  keys = keys.defined() ? torch::cat({keys, new_keys}, 2) : new_keys;          // [b, kv_heads, t, hd]
  values = values.defined() ? torch::cat({values, new_values}, 2) : new_values;  // [b, kv_heads, t, hd]
  return {keys, values};
}

}  // namespace llm
