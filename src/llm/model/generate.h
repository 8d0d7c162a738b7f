#pragma once

#include <torch/torch.h>

#include "llm/model/gpt_model.h"

namespace llm {

/// Lesson 4.7: greedy generation. Appends max_new_tokens ids to each row of `idx`
/// ([b, t], int64), each the argmax of the logits at the last position, with the
/// context cropped to its last `context_size` tokens. Runs without autograd; the
/// caller chooses eval or train mode. Returns [b, t + max_new_tokens].
torch::Tensor generate_text_simple(GPTModel& model, torch::Tensor idx, int64_t max_new_tokens, int64_t context_size);

}  // namespace llm
