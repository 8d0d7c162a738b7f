#pragma once

#include <torch/torch.h>

#include <string>

#include "llm/io/tensor_archive.h"

namespace llm {

/// The module's parameters and buffers under PyTorch's state_dict names
/// ("trf_blocks.0.att.W_query.weight"), in state_dict order: each module's own
/// parameters, then its buffers, then its children's, depth first.
NamedTensors state_dict(const torch::nn::Module& module);

/// state_dict, with every LoRA (appendix E) folded into its Linear's weight:
/// W + (alpha / rank) * (A @ B)^T, and no LoRA keys. What the model computes, under
/// the names of the model without LoRA: the export PyTorch's lesson GPT loads. The
/// module itself is left as it is.
NamedTensors merged_state_dict(const torch::nn::Module& module);

/// Copies `tensors` into the module's parameters and buffers by name. Each key must
/// name one of them and have its shape, and each of them must be given: otherwise
/// an llm::Error names `source` and the first missing, unexpected or mis-shaped key.
/// Each tensor is let go once copied: given with std::move, the file's pages
/// (load_safetensors) or the tensor go while the load goes on.
void load_state_dict(torch::nn::Module& module, NamedTensors tensors, const std::string& source);

}  // namespace llm
