#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llm/io/tensor_archive.h"
#include "llm/model/model_config.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/text/dataset.h"
#include "llm/train/lesson_seeds.h"
#include "llm/train/train_config.h"

namespace llm {

class Trainer;
struct TrainHooks;

/// A task's training and validation examples, and how an epoch draws them.
struct TrainValSplit {
  std::shared_ptr<const Dataset> train, val;
  /// Examples an epoch (and an evaluation) draws with replacement, as PyTorch's
  /// RandomSampler(replacement=True) does; 0: each example once, in a shuffled order.
  int64_t train_samples = 0, val_samples = 0;
};

/// What a training run learns: pretraining (chapter 5), classification (chapter 6),
/// instruction finetuning (chapter 7), preference tuning (DPO, its bonus). A task builds its data and its model, gives the
/// loss of a batch, and says what happens after each epoch; the Trainer runs any task
/// through this interface and knows none of them by name. docs/architecture.md shows
/// how to add one.
class Task {
 public:
  virtual ~Task() = default;

  /// The run config's "task" value ("pretrain", "classify", "instruct", "dpo").
  virtual std::string_view name() const = 0;
  /// What a step that runs it does, for messages ("pretrains").
  virtual std::string_view does() const = 0;
  /// A run of it, for messages ("a pretraining run").
  virtual std::string_view run_kind() const = 0;

  /// An llm::Error naming `source` and the key of a setting this task cannot use.
  virtual void check_config(const TrainConfig& /*config*/, std::string_view /*source*/) const {}
  /// Whether this task reads `setting`, a key of train_settings(): a setting that no
  /// task lists in own_settings() is every task's (data, batch_size, lr, ...); the
  /// others are read by the tasks that list them. A step that runs one task offers
  /// flags for its settings only.
  bool reads(std::string_view setting) const;

  /// Reads config.data for a model of `context_length` tokens: the split the trainer
  /// draws from, and what else the task keeps (a test split, the padded length).
  virtual void load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) = 0;
  const TrainValSplit& split() const { return split_; }
  /// The settings the data decides, after load_data (the classifier's padded length,
  /// the prompt the sample continues), kept in the run's checkpoint.
  virtual void adapt_config(TrainConfig& /*config*/) const {}

  /// A new run's model: the model of `model_config` (any family) with `weights` when given (a file
  /// its family's load_weights reads; `source` names it), made what this task trains, each
  /// draw after the seed the lesson sets before it.
  virtual LanguageModel make_model(const ModelConfig& model_config, const TrainConfig& config, const NamedTensors& weights,
                              const std::string& source, const LessonSeeds& seeds) = 0;
  /// Gives a model the shape make_model gives it (a head, a LoRA), for a checkpoint's
  /// weights to load into; what it draws is overwritten by them.
  virtual void shape_model(LanguageModelImpl& /*model*/, const TrainConfig& /*config*/) const {}
  /// Whether a new run also takes the AdamW state of a lesson 5.4 file given as its
  /// initial weights (continuing pretraining), rather than only its weights.
  virtual bool continues_optimizer() const { return false; }

  /// The loss of one batch, with autograd as the caller has it.
  virtual torch::Tensor batch_loss(LanguageModelImpl& model, const Batch& batch) const = 0;
  /// What an evaluation reports of each split besides its loss, by name (DPO's
  /// "chosen_reward" and "rejected_reward"); none by default.
  virtual std::vector<std::string> figure_names() const { return {}; }
  /// A batch's loss and figures as one 1-D tensor, [loss, figure...], each the mean
  /// over the batch; the caller turns autograd off.
  virtual torch::Tensor batch_figures(LanguageModelImpl& model, const Batch& batch) const {
    return batch_loss(model, batch).reshape({1});
  }

  /// What a checkpoint keeps of the task besides the model it trains (under "task/"):
  /// DPO's reference model, named by its file and its fingerprint, not copied.
  virtual NamedTensors state() const { return {}; }
  /// A resumed run's task takes its checkpoint's state back (the "task/" entries,
  /// without the prefix) before make_model; `source` names the checkpoint in errors.
  virtual void restore_state(const NamedTensors& /*state*/, const std::string& /*source*/) {}
  /// What a batch adds to the run's count of what it has seen, and the count's unit on
  /// the progress line: tokens, or examples for a classifier.
  virtual int64_t seen(const Batch& batch) const { return batch.inputs.numel(); }
  virtual std::string_view seen_unit() const { return "tok"; }

  /// After each epoch's last step: the lesson's sample or accuracies, to `hooks`.
  virtual void end_epoch(Trainer& trainer, const TrainHooks& hooks) const = 0;

 protected:
  /// The settings this task reads that not every task does (val_data, num_classes, beta).
  virtual std::vector<std::string_view> own_settings() const = 0;

  TrainValSplit split_;
};

/// What the finetuning tasks (chapters 6 and 7) share: a pretrained GPT made ready,
/// its own splits (no val_data, no random windows), and appendix E's LoRA when
/// config.lora_rank is set.
class FinetuneTask : public Task {
 public:
  void check_config(const TrainConfig& config, std::string_view source) const override;
  void shape_model(LanguageModelImpl& model, const TrainConfig& config) const override;
};

/// The tasks a run config may name, in the order of the chapters.
const std::vector<std::string_view>& task_names();

/// Those names as a message lists them: "pretrain", "classify" or "instruct".
std::string task_choices();

/// A new task of that name; an llm::Error listing the names otherwise.
std::unique_ptr<Task> make_task(std::string_view name);

/// The model every task starts from: `model_config`'s, built after the lesson's seed (before_model), with
/// `weights` loaded when given (a file its family's load_weights reads; `source` names it).
LanguageModel base_model(const ModelConfig& model_config, const NamedTensors& weights, const std::string& source,
                  const LessonSeeds& seeds);

/// The lesson's generate_and_print_sample after an epoch: the start_context continued,
/// to hooks.on_sample.
void sample_after_epoch(Trainer& trainer, const TrainHooks& hooks);

/// Appendix E (and exercise 7.4) on a model: every parameter frozen, then a LoRA of
/// config.lora_rank and lora_alpha on every Linear, drawn from the global generator.
void freeze_and_add_lora(LanguageModelImpl& model, const TrainConfig& config);

}  // namespace llm
