#include "llm/attention/simplified.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/util/error.h"

namespace llm {

SimplifiedAttention simplified_self_attention(const torch::Tensor& inputs) {
  if (inputs.dim() != 2) throw Error(fmt::format("simplified attention: inputs must be [t, d], got {}-D", inputs.dim()));
  auto scores = torch::matmul(inputs, inputs.t());  // [t, t]
  auto weights = torch::softmax(scores, /*dim=*/-1);
  auto context = torch::matmul(weights, inputs);  // [t, d]
  return {std::move(scores), std::move(weights), std::move(context)};
}

torch::Tensor journey_inputs() {
  return torch::tensor({{0.43, 0.15, 0.89},    // Your
                        {0.55, 0.87, 0.66},    // journey
                        {0.57, 0.85, 0.64},    // starts
                        {0.22, 0.58, 0.33},    // with
                        {0.77, 0.25, 0.10},    // one
                        {0.05, 0.80, 0.55}});  // step
}

torch::Tensor attention_input(torch::IntArrayRef shape) {
  for (const int64_t size : shape) {
    if (size <= 0) throw Error(fmt::format("input sizes must be positive, got [{}]", fmt::join(shape, ", ")));
  }
  const int64_t n = static_cast<int64_t>(shape.size());
  if (n >= 2 && shape[n - 2] == 6 && shape[n - 1] == 3) return journey_inputs().expand(shape).clone().requires_grad_();
  return torch::rand(shape).requires_grad_();
}

}  // namespace llm
