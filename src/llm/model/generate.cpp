#include "llm/model/generate.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

torch::Tensor generate_text_simple(GPTModel& model, torch::Tensor idx, int64_t max_new_tokens, int64_t context_size) {
  if (idx.dim() != 2 || idx.size(1) == 0) {
    throw Error("generate: the prompt must be [batch, tokens] with at least one token");
  }
  if (max_new_tokens < 0) throw Error(fmt::format("generate: max_new_tokens must be >= 0, got {}", max_new_tokens));
  if (context_size <= 0) throw Error(fmt::format("generate: context_size must be positive, got {}", context_size));
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < max_new_tokens; ++i) {
    const auto context = idx.slice(1, std::max<int64_t>(0, idx.size(1) - context_size));  // [b, <= context_size]
    const auto logits = model->forward(context).select(1, -1);                              // [b, vocab_size]
    const auto next = torch::softmax(logits, -1).argmax(-1, /*keepdim=*/true);              // [b, 1]
    idx = torch::cat({idx, next}, 1);                                                       // [b, t + 1]
  }
  return idx;
}

}  // namespace llm
