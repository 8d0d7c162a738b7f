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
  const int64_t t = q.size(-2);
  auto scores = torch::matmul(q, k.transpose(-2, -1));  // [..., t, t]
  scores.masked_fill_(mask.slice(0, 0, t).slice(1, 0, t).to(torch::kBool), -INFINITY);
  auto weights = dropout(torch::softmax(scores / std::sqrt(static_cast<double>(k.size(-1))), /*dim=*/-1));
  if (weights_out != nullptr) *weights_out = weights;
  return torch::matmul(weights, v);  // [..., t, d_v]
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

}  // namespace llm
