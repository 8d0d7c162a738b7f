#pragma once

#include <torch/torch.h>

namespace llm {

struct SimplifiedAttention {
  torch::Tensor scores;   // [t, t] dot products of every pair of inputs
  torch::Tensor weights;  // [t, t] softmax of each row
  torch::Tensor context;  // [t, d] weighted sums of the inputs
};

/// Lesson 3.3: self-attention without trainable weights. Each input is its own
/// query, key and value.
SimplifiedAttention simplified_self_attention(const torch::Tensor& inputs);

/// The lesson's embedded sentence "Your journey starts with one step", [6, 3].
torch::Tensor journey_inputs();

/// An input of `shape` ([tokens, d_in] or [batch, tokens, d_in]) that requires grad:
/// the lesson's "Your journey starts with one step" (repeated over the batch) when
/// tokens is 6 and d_in 3, else torch.rand, drawn from the global generator as the
/// reference scripts draw it.
torch::Tensor attention_input(torch::IntArrayRef shape);

}  // namespace llm
