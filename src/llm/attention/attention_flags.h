#pragma once

#include <cxxopts.hpp>
#include <torch/torch.h>

#include <string>

#include "llm/attention/attention_options.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"

namespace llm {

/// Defaults of the chapter-3 size flags: the lesson's.
struct AttentionFlagDefaults {
  int64_t d_in = 3, d_out = 2, num_heads = 2, num_kv_groups = 1, context_length = 6, batch = 2;
  double dropout = 0.0;
};

/// --d-in --d-out --num-heads --num-kv-groups --context-length --dropout --batch --qkv-bias
void add_attention_flags(cxxopts::Options& options, const AttentionFlagDefaults& defaults = {});

AttentionOptions attention_options(const cxxopts::ParseResult& args);

/// An input of `shape` ([tokens, d_in] or [batch, tokens, d_in]) that requires grad:
/// the lesson's "Your journey starts with one step" (repeated over the batch) when
/// tokens is 6 and d_in 3, else torch.rand, drawn from the global generator as the
/// reference scripts draw it.
torch::Tensor attention_input(torch::IntArrayRef shape);

/// What the PyTorch reference records for an attention module (see
/// scripts/reference/attention.py, run_case): its kind, seed and sizes, the input,
/// the state dict, the output of a training-mode forward pass, a drawn grad_output,
/// and the gradients of (output * grad_output).sum(). Runs the backward pass.
template <typename Module>
NamedTensors record_attention_run(const std::string& kind, uint64_t seed, const AttentionOptions& options,
                                  Module& module, const torch::Tensor& input, const torch::Tensor& output);

namespace detail {
NamedTensors attention_header(const std::string& kind, uint64_t seed, const AttentionOptions& options);
}

template <typename Module>
NamedTensors record_attention_run(const std::string& kind, uint64_t seed, const AttentionOptions& options,
                                  Module& module, const torch::Tensor& input, const torch::Tensor& output) {
  NamedTensors archive = detail::attention_header(kind, seed, options);
  const auto grad_output = torch::randn(output.sizes());
  output.backward(grad_output);
  archive.emplace_back("input", input);
  archive.emplace_back("output", output);
  archive.emplace_back("grad_output", grad_output);
  archive.emplace_back("grad/input", input.grad());
  for (auto& entry : state_dict(*module)) archive.push_back(std::move(entry));
  for (const auto& p : module->named_parameters()) archive.emplace_back("grad/" + p.key(), p.value().grad());
  return archive;
}

}  // namespace llm
