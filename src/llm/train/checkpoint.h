#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "llm/io/tensor_archive.h"
#include "llm/model/model_config.h"
#include "llm/train/metrics.h"
#include "llm/train/train_config.h"

namespace llm {

/// A training checkpoint is one torch.save-compatible archive (torch.load reads it):
///
///   format                  "libtorch-llm checkpoint 1"
///   config/model            the model config (ModelConfig), JSON text (uint8)
///   config/train            the run config, JSON text (uint8)
///   model/<name>            the model's state dict
///   optimizer/<name>/...    AdamW's step, exp_avg and exp_avg_sq per parameter
///   progress/...            step, epoch, batch, tokens_seen and the epoch's window order
///   history/...             every evaluation so far (step, epoch, tokens, losses, lr)
///   accuracy/...            a classification run's accuracies after each epoch
///   rng/cpu                 the global generator's state (torch.get_rng_state())
///
/// Together they continue a run exactly where it stopped.
inline constexpr const char* kCheckpointFormat = "libtorch-llm checkpoint 1";

/// Where a run stands. With the model, AdamW's state, the configs and the global
/// generator, it is what a checkpoint holds.
struct TrainingProgress {
  int64_t step = 0;                 ///< optimizer steps done
  int64_t epoch = 0;                ///< the epoch under way, from 0
  int64_t batch = 0;                ///< batches of it used
  torch::Tensor order;              ///< its window order (undefined until it starts)
  int64_t tokens_seen = 0;          ///< input tokens trained on, by every rank (examples, to classify)
  std::vector<EvalRecord> history;  ///< every evaluation so far
  std::vector<AccuracyRecord> accuracies;  ///< a classification run's, after each epoch

  /// The next epoch, from its start.
  void next_epoch() {
    ++epoch;
    batch = 0;
    order = torch::Tensor();
  }
};

/// A run's whole checkpoint as an archive, and writing it atomically to `path`.
/// `task_state` (Task::state) goes in under "task/".
NamedTensors checkpoint_archive(const LanguageModelImpl& model, torch::optim::AdamW& optimizer, const TrainConfig& config,
                                const TrainingProgress& progress, const NamedTensors& task_state = {});
void save_checkpoint(const std::filesystem::path& path, const LanguageModelImpl& model, torch::optim::AdamW& optimizer,
                     const TrainConfig& config, const TrainingProgress& progress, const NamedTensors& task_state = {});

/// Puts a checkpoint back: its weights into `model` (built from its config), AdamW's
/// state into `optimizer` and its generator state into the global generator; returns
/// its progress. A missing, mis-shaped or impossible entry is an llm::Error naming
/// `source`.
TrainingProgress restore_checkpoint(const NamedTensors& checkpoint, const std::string& source, LanguageModelImpl& model,
                                    torch::optim::AdamW& optimizer);

/// Puts PyTorch's optimizer.state_dict() for `module`'s parameters into `optimizer`:
/// the entries "state/<i>/step", "state/<i>/exp_avg" and "state/<i>/exp_avg_sq", where
/// i counts module.parameters() (lesson 5.4's "optimizer_state_dict", without that
/// prefix). The run's own settings keep the learning rate and weight decay. A missing
/// or mis-shaped entry, or a list of parameters of another length, is an llm::Error
/// naming `source`.
void load_torch_optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module,
                                const NamedTensors& state_dict, const std::string& source);

/// Reads a checkpoint. A file that is not a torch.save archive, or an archive that is
/// not a checkpoint (no 'format' entry, another format), is an llm::Error naming it.
NamedTensors load_checkpoint(const std::filesystem::path& path);

/// The check load_checkpoint makes of an archive's entries: an llm::Error naming
/// `source` unless they are a checkpoint of this format.
void check_checkpoint_format(const NamedTensors& tensors, const std::string& source);

/// The configs and the model weights (without the "model/" prefix) of a checkpoint;
/// `source` names it in errors.
ModelConfig checkpoint_model_config(const NamedTensors& checkpoint, const std::string& source);
TrainConfig checkpoint_train_config(const NamedTensors& checkpoint, const std::string& source);
NamedTensors checkpoint_weights(const NamedTensors& checkpoint);

/// The progress counters of a checkpoint ("step", "epoch", "batch", "tokens_seen"),
/// before the run is rebuilt: what a resumed run's flags are checked against.
int64_t checkpoint_counter(const NamedTensors& checkpoint, const std::string& name, const std::string& source);


}  // namespace llm
