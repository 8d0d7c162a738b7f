#include "llm/attention/scaled_dot_product.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "llm/util/error.h"

namespace llm {

torch::Tensor causal_mask(int64_t context_length) {
  return torch::triu(torch::ones({context_length, context_length}), /*diagonal=*/1);
}

torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& mask, torch::nn::Dropout& dropout, torch::Tensor* weights_out) {
  // The queries are the last t_q of the t_k positions (all of them without a cache).
  const int64_t t_q = q.size(-2), t_k = k.size(-2);
  return masked_attention(q, k, v, mask.slice(0, t_k - t_q, t_k).slice(1, 0, t_k).to(torch::kBool), dropout,
                          weights_out);
}

torch::Tensor grouped_scores(const torch::Tensor& q, const torch::Tensor& k) {
  if (q.dim() != 4 || k.size(1) == q.size(1)) return torch::matmul(q, k.transpose(-2, -1));
  const int64_t b = q.size(0), h = q.size(1), t_q = q.size(2), g = k.size(1);
  const auto rows = q.reshape({b, g, h / g * t_q, q.size(3)});                       // [b, g, h/g * t_q, d]
  return torch::matmul(rows, k.transpose(-2, -1)).view({b, h, t_q, k.size(2)});  // [b, h, t_q, t_k]
}

torch::Tensor grouped_context(const torch::Tensor& weights, const torch::Tensor& v) {
  if (weights.dim() != 4 || v.size(1) == weights.size(1)) return torch::matmul(weights, v);
  const int64_t b = weights.size(0), h = weights.size(1), t_q = weights.size(2), g = v.size(1);
  const auto rows = weights.reshape({b, g, h / g * t_q, weights.size(3)});  // [b, g, h/g * t_q, t_k]
  return torch::matmul(rows, v).view({b, h, t_q, v.size(3)});            // [b, h, t_q, d_v]
}

torch::Tensor masked_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& masked, torch::nn::Dropout& dropout, torch::Tensor* weights_out) {
  auto scores = grouped_scores(q, k);  // [b, h, t_q, t_k]
  if (masked.defined()) scores.masked_fill_(masked, -INFINITY);
  const auto weights = torch::softmax(scores / std::sqrt(static_cast<double>(k.size(-1))), /*dim=*/-1);
  if (weights_out != nullptr) *weights_out = weights;
  return grouped_context(dropout(weights), v);  // [b, h, t_q, d_v]
}

torch::Tensor attention_mask(int64_t t_q, int64_t t_k, int64_t window, torch::Device device) {
  const auto options = torch::TensorOptions().dtype(torch::kLong).device(device);
  const auto query_positions = torch::arange(t_k - t_q, t_k, options).unsqueeze(1);  // [t_q, 1]
  const auto key_positions = torch::arange(t_k, options).unsqueeze(0);               // [1, t_k]
  auto masked = key_positions > query_positions;                                       // the future
  if (window > 0) masked = masked.logical_or(query_positions - key_positions >= window);  // the far past
  return masked;  // [t_q, t_k]
}

torch::Tensor split_heads(const torch::Tensor& x, int64_t n) {
  return x.view({x.size(0), x.size(1), n, x.size(2) / n}).transpose(1, 2);  // [b, n, t, hd]
}

torch::Tensor merge_heads(const torch::Tensor& x) {
  return x.transpose(1, 2).contiguous().view({x.size(0), x.size(2), x.size(1) * x.size(3)});  // [b, t, n * hd]
}

void check_attention_input(const torch::Tensor& x, int64_t d_in, int64_t context_length, const char* module) {
  if (x.dim() != 3 || x.size(2) != d_in) {
    throw Error(fmt::format("{}: input must be [batch, tokens, {}], got [{}]", module, d_in, fmt::join(x.sizes(), ", ")));
  }
  if (x.size(1) > context_length) {
    throw Error(fmt::format("{}: {} tokens exceed context_length {}", module, x.size(1), context_length));
  }
}

void check_cached_input(const torch::Tensor& x, const LayerKVCache& cache, int64_t d_in, int64_t context_length,
                        const char* module) {
  check_attention_input(x, d_in, context_length, module);
  if (cache.length() + x.size(1) > context_length) {
    throw Error(fmt::format("{}: {} cached and {} new tokens exceed context_length {}", module, cache.length(),
                            x.size(1), context_length));
  }
}

}  // namespace llm
