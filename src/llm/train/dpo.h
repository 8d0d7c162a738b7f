#pragma once

#include <torch/torch.h>

#include "llm/model/language_model.h"
#include "llm/text/preference_data.h"

namespace llm {

/// The DPO notebook's compute_logprobs: the log-probability of each next token
/// (labels shifted by one, logits without their last position), and per row its mean
/// over the positions the selection mask (shifted likewise) keeps, or over all of
/// them without a mask. logits [b, T, vocab], labels and mask [b, T]; returns [b].
torch::Tensor compute_logprobs(const torch::Tensor& logits, const torch::Tensor& labels,
                               const torch::Tensor& selection_mask = {});

/// compute_logprobs(model(ids), ids, mask), computed from the model's hidden states:
/// only the positions the mask keeps go through the output layer and the
/// log-softmax, and the backward turns their log-probabilities into the gradient in
/// place (a LoRA on out_head takes the plain path). With autograd as the caller has it.
torch::Tensor response_logprobs(LanguageModelImpl& model, const torch::Tensor& ids, const torch::Tensor& mask);

/// The notebook's compute_dpo_loss: with the policy's and the reference's mean
/// log-probabilities of the chosen and the rejected responses ([b] each), the loss
/// -logsigmoid(beta * ((policy_chosen - policy_rejected) - (reference_chosen -
/// reference_rejected))) and the rewards policy - reference of each, all as means
/// over the batch; the rewards without autograd.
struct DpoLoss {
  torch::Tensor loss, chosen_rewards, rejected_rewards;
};
DpoLoss compute_dpo_loss(const torch::Tensor& policy_chosen, const torch::Tensor& policy_rejected,
                         const torch::Tensor& reference_chosen, const torch::Tensor& reference_rejected, double beta);

/// The notebook's compute_dpo_loss_batch: the policy's log-probabilities of the
/// chosen, then the rejected, texts (two forward passes, with autograd as the caller
/// has it, as the notebook draws dropout), the reference's without autograd, and
/// compute_dpo_loss of them. A policy in eval mode, and the reference, read both texts
/// in one pass.
DpoLoss compute_dpo_loss_batch(const PreferenceBatch& batch, LanguageModelImpl& policy, LanguageModelImpl& reference,
                               double beta);

}  // namespace llm
