#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <string>

#include "llm/io/tensor_archive.h"
#include "llm/model/gpt_config.h"
#include "llm/train/train_config.h"

namespace llm {

/// A training checkpoint is one torch.save-compatible archive (torch.load reads it):
///
///   format                  "libtorch-llm checkpoint 1"
///   config/model            the GPT config, JSON text (uint8)
///   config/train            the run config, JSON text (uint8)
///   model/<name>            the model's state dict
///   optimizer/<name>/...    AdamW's step, exp_avg and exp_avg_sq per parameter
///   progress/...            step, epoch, batch, tokens_seen and the epoch's window order
///   history/...             every evaluation so far (step, epoch, tokens, losses, lr)
///   rng/cpu                 the global generator's state (torch.get_rng_state())
///
/// Together they continue a run exactly where it stopped.
inline constexpr const char* kCheckpointFormat = "libtorch-llm checkpoint 1";

/// Reads a checkpoint. A file that is not a torch.save archive, or an archive that is
/// not a checkpoint (no 'format' entry, another format), is an llm::Error naming it.
NamedTensors load_checkpoint(const std::filesystem::path& path);

/// The check load_checkpoint makes of an archive's entries: an llm::Error naming
/// `source` unless they are a checkpoint of this format.
void check_checkpoint_format(const NamedTensors& tensors, const std::string& source);

/// The configs and the model weights (without the "model/" prefix) of a checkpoint;
/// `source` names it in errors.
GPTConfig checkpoint_model_config(const NamedTensors& checkpoint, const std::string& source);
TrainConfig checkpoint_train_config(const NamedTensors& checkpoint, const std::string& source);
NamedTensors checkpoint_weights(const NamedTensors& checkpoint);

/// The entries whose names start with `prefix`, with it removed.
NamedTensors with_prefix_removed(const NamedTensors& tensors, const std::string& prefix);

/// AdamW's per-parameter state under the parameters' state-dict names:
/// "<name>/step", "<name>/exp_avg", "<name>/exp_avg_sq" (none before the first step).
NamedTensors optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module);

/// Puts that state back; a missing or mis-shaped entry is an llm::Error naming `source`.
void load_optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module, const NamedTensors& state,
                          const std::string& source);

/// The global CPU generator's state, and setting it back (torch.get/set_rng_state).
torch::Tensor rng_state();
void set_rng_state(const torch::Tensor& state, const std::string& source);

}  // namespace llm
