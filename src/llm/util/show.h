#pragma once

#include <torch/torch.h>

#include <string>

namespace llm {

/// A tensor as LibTorch prints it, for the lessons' printouts.
std::string show(const torch::Tensor& tensor);

/// Token ids on one line: "[15496, 11, 314]".
std::string show_ids(const torch::Tensor& ids);

/// "[2, 6, 4]"
std::string shape(const torch::Tensor& tensor);

/// Trainable parameters of a module (shared tensors counted once).
int64_t parameter_count(const torch::nn::Module& module);

}  // namespace llm
