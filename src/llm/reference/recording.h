#pragma once

// What the executables record for the PyTorch comparison (--save-outputs), in the
// form scripts/reference/compare.py and the reference scripts read and write.

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "llm/attention/attention_options.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/generate.h"
#include "llm/model/gpt_config.h"
#include "llm/model/language_model.h"

namespace llm {

/// The 64-bit fingerprint of a float tensor's bits that the reference scripts also
/// compute (scripts/reference/gpt.py): equal weights, equal fingerprints.
torch::Tensor fingerprint(const torch::Tensor& tensor);

/// "fingerprint/<name>" for each entry of the module's state dict.
NamedTensors fingerprints(const torch::nn::Module& module);

/// The archive header of a chapter-4 run: what wrote it, the seed and the config.
NamedTensors model_header(const std::string& kind, uint64_t seed, const GPTConfig& config);

/// The same for a model of any family: the course's GPT as above; another family's
/// config as JSON text ("config_json": model_config_json), from which a script
/// rebuilds the course's class of that family.
NamedTensors model_header(const std::string& kind, uint64_t seed, const LanguageModelImpl& model);

/// The archive header of a chapter-3 run: what wrote it, the seed and the sizes.
NamedTensors attention_header(const std::string& kind, uint64_t seed, const AttentionOptions& options);

/// What the PyTorch reference records for an attention module (see
/// scripts/reference/attention.py, run_case): its kind, seed and sizes, the input,
/// the state dict, the output of a training-mode forward pass, a drawn grad_output,
/// and the gradients of (output * grad_output).sum(). Runs the backward pass.
template <typename Module>
NamedTensors record_attention_run(const std::string& kind, uint64_t seed, const AttentionOptions& options,
                                  Module& module, const torch::Tensor& input, const torch::Tensor& output) {
  NamedTensors archive = attention_header(kind, seed, options);
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

/// Appends the model's weights as "model/<name>", for a reference that must run the
/// same weights (loaded or trained ones, which no seed rebuilds).
void record_weights(NamedTensors& archive, const torch::nn::Module& model);

/// The generation --save-outputs records: the settings, the prompt and the ids, with
/// the model's config and weights, so that compare.py can run the lesson's generate()
/// on the same weights after the same seed.
NamedTensors record_sampling(const LanguageModelImpl& model, uint64_t seed, const SamplingOptions& sampling,
                             const torch::Tensor& prompt, const torch::Tensor& generated);

}  // namespace llm
