#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "llm/nn/linear.h"
#include "llm/nn/module_list.h"

namespace llm {

/// Qwen3's mixture-of-experts feed-forward (qwen3.py's MoEFeedForward): a router
/// (`gate`) scores num_experts SwiGLU experts per token, the top num_experts_per_tok
/// are run, and their outputs are summed weighted by the softmax of their scores.
/// Expert e is fc1[e], fc2[e] and fc3[e]. [b, t, emb_dim] -> [b, t, emb_dim].
struct MoEFeedForwardImpl : torch::nn::Module {
  MoEFeedForwardImpl(int64_t emb_dim, int64_t num_experts, int64_t num_experts_per_tok, int64_t moe_intermediate_size,
                     torch::Dtype dtype = torch::kFloat);
  torch::Tensor forward(const torch::Tensor& x);

  int64_t num_experts_per_tok;
  Linear gate{nullptr};
  ModuleListOf<Linear> fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
TORCH_MODULE(MoEFeedForward);

}  // namespace llm
