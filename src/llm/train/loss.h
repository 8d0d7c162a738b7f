#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "llm/model/classifier.h"
#include "llm/model/language_model.h"
#include "llm/text/data_loader.h"

namespace llm {

/// The target that adds nothing to a loss: cross_entropy's ignore_index, which
/// chapter 7's batches put on padding (and, exercise 7.2, on the prompt).
constexpr int64_t kIgnoreIndex = -100;

/// Lesson 5.1: the mean cross-entropy of next-token logits [b, t, vocab] against
/// target ids [b, t], over the b * t positions whose target is not kIgnoreIndex
/// (PyTorch's cross_entropy on the flattened tensors).
torch::Tensor token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets);

/// token_cross_entropy(hidden.matmul(weight.t()), targets) for hidden [b, t, d],
/// weight [vocab, d] (a bias-free output layer), targets [b, t], computed without
/// the intermediate tensors: the forward keeps only the log-probabilities, and the
/// backward turns them into the logits' gradient in place (softmax minus one-hot)
/// instead of allocating a zero tensor for the one-hot, a gradient of the
/// log-softmax and another of the logits; positions whose target is kIgnoreIndex
/// are left out first. Equal to the unfused loss and gradients to float rounding
/// (tests/test-train.cpp).
torch::Tensor linear_cross_entropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                   const torch::Tensor& targets);

/// The model's loss on one batch, with autograd as the caller has it: lesson 5.1's
/// token_cross_entropy of the logits, computed as linear_cross_entropy of the
/// hidden states and the output layer's weight (from the logits when out_head has a
/// LoRA).
torch::Tensor calc_loss_batch(LanguageModelImpl& model, const Batch& batch);

/// Lesson 6.6's calc_loss_batch: the cross-entropy of the class logits (class_logits)
/// against the labels [b].
torch::Tensor calc_class_loss_batch(LanguageModelImpl& model, const Batch& batch, ClassToken token = ClassToken::kLast);

/// A batch's loss: calc_loss_batch, or calc_class_loss_batch with its token.
using BatchLoss = std::function<torch::Tensor(LanguageModelImpl&, const Batch&)>;

/// A batch's loss and a task's other figures, as one 1-D tensor [loss, figure...]
/// (Task::batch_figures).
using BatchFigures = std::function<torch::Tensor(LanguageModelImpl&, const Batch&)>;

/// calc_loss_loader for several figures at once (the DPO notebook's
/// compute_dpo_loss_loader: the loss and the chosen and rejected rewards): the mean of
/// each over the same batches, drawn as calc_loss_loader draws them.
std::vector<double> calc_figures_loader(LanguageModelImpl& model, const DataLoader& loader,
                                        std::optional<int64_t> num_batches, const BatchFigures& figures);

/// The mean batch loss over the first `num_batches` batches of one pass over the
/// loader (all of them when not given, and at most all of them). Starting the pass
/// draws from the global generator as PyTorch's DataLoader does, so evaluating
/// inside a training loop keeps the two languages' random streams in step. No
/// autograd; the caller chooses train or eval mode.
double calc_loss_loader(LanguageModelImpl& model, const DataLoader& loader, std::optional<int64_t> num_batches = std::nullopt,
                        const BatchLoss& loss = calc_loss_batch);

/// Lesson 6.6's calc_accuracy_loader: the share of the first `num_batches` batches'
/// examples whose largest class logit is their label. Like the lesson, it puts the
/// model in eval mode and leaves it there; the pass draws as calc_loss_loader's does.
double calc_accuracy_loader(LanguageModelImpl& model, const DataLoader& loader,
                            std::optional<int64_t> num_batches = std::nullopt, ClassToken token = ClassToken::kLast);

}  // namespace llm
