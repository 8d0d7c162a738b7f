#pragma once

#include <torch/torch.h>

#include <string>

namespace llm {

/// A module as PyTorch's print(model) shows it (nn.Module.__repr__), so that a lesson's
/// printout of a model and ours read the same:
///
///     Qwen3Model(
///       (tok_emb): Embedding(151936, 1024)
///       (trf_blocks): ModuleList(
///         (0-27): 28 x TransformerBlock(
///           ...
///
/// A module with children prints its name() (the course's class name, which this
/// project's modules pass to torch::nn::Module's constructor) and each child under its
/// registered name, indented; a ModuleList folds runs of equal children into
/// "(0-27): 28 x ...", as nn.ModuleList does. A module without children prints what its
/// pretty_print writes (this project's Linear and RMSNorm write PyTorch's text), and
/// LibTorch's Embedding and Dropout print as nn.Embedding and nn.Dropout do.
std::string module_repr(const torch::nn::Module& module);

}  // namespace llm
