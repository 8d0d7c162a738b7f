#include "llm/train/dpo.h"

namespace llm {
namespace {

// The log-probability of each row's target, [n], from hidden [n, d] and a bias-free
// output layer's weight [vocab, d]. Saves the log-probabilities [n, vocab]; the
// gradient of a row's log-probability with respect to its logits is one_hot - softmax.
struct LinearTokenLogProbs : torch::autograd::Function<LinearTokenLogProbs> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& hidden,
                               const torch::Tensor& weight, const torch::Tensor& targets) {
    auto log_probs = torch::log_softmax(hidden.mm(weight.t()), 1);  // [n, vocab]
    auto selected = log_probs.gather(1, targets.unsqueeze(1)).squeeze(1);
    ctx->save_for_backward({hidden, weight, targets, log_probs});
    return selected;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto &hidden = saved[0], &weight = saved[1], &targets = saved[2];
    auto grad_logits = saved[3].exp_();  // the softmax, in the log-probabilities' memory
    grad_logits.scatter_add_(1, targets.unsqueeze(1), torch::full({targets.size(0), 1}, -1.0, grad_logits.options()));
    grad_logits.mul_(-grad_outputs[0].unsqueeze(1));  // (one_hot - softmax) * the row's gradient
    return {grad_logits.mm(weight), grad_logits.t().mm(hidden), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor compute_logprobs(const torch::Tensor& logits, const torch::Tensor& labels,
                               const torch::Tensor& selection_mask) {
  const auto shifted = labels.slice(1, 1);  // labels are the inputs shifted by one
  const auto log_probs = torch::log_softmax(logits.slice(1, 0, -1), -1);
  const auto selected = log_probs.gather(-1, shifted.unsqueeze(-1)).squeeze(-1);  // [b, T - 1]
  if (!selection_mask.defined()) return selected.mean(-1);
  const auto mask = selection_mask.slice(1, 1);
  return (selected * mask).sum(-1) / mask.sum(-1);
}

torch::Tensor response_logprobs(LanguageModelImpl& model, const torch::Tensor& ids, const torch::Tensor& mask) {
  const auto device = model.device();
  const auto inputs = ids.to(device), kept = mask.to(device);
  const auto head = model.head();
  if (head->lora) return compute_logprobs(model.forward(inputs), inputs, kept);  // a LoRA adds to the logits
  const auto selected = kept.slice(1, 1);                                         // [b, T - 1]
  const auto rows = selected.flatten().nonzero().squeeze(1);                      // positions kept
  const auto hidden = model.forward_hidden(inputs).slice(1, 0, -1).flatten(0, 1);  // [b * (T - 1), d]
  const auto labels = inputs.slice(1, 1).flatten();
  const auto token_logprobs =
      LinearTokenLogProbs::apply(hidden.index_select(0, rows), head->weight_as(hidden.scalar_type()),
                                 labels.index_select(0, rows));
  const auto rows_per_text = selected.size(1);
  const auto sums = torch::zeros({inputs.size(0)}, token_logprobs.options())
                        .index_add(0, rows.div(rows_per_text, "floor"), token_logprobs);
  return sums / selected.sum(-1);
}

DpoLoss compute_dpo_loss(const torch::Tensor& policy_chosen, const torch::Tensor& policy_rejected,
                         const torch::Tensor& reference_chosen, const torch::Tensor& reference_rejected, double beta) {
  const auto logits = (policy_chosen - policy_rejected) - (reference_chosen - reference_rejected);
  const auto losses = -torch::log_sigmoid(beta * logits);  // DPO, equation 7 of Rafailov et al. (2023)
  const auto chosen_rewards = (policy_chosen - reference_chosen).detach();
  const auto rejected_rewards = (policy_rejected - reference_rejected).detach();
  return {losses.mean(), chosen_rewards.mean(), rejected_rewards.mean()};
}

DpoLoss compute_dpo_loss_batch(const PreferenceBatch& batch, LanguageModelImpl& policy, LanguageModelImpl& reference,
                               double beta) {
  const auto both = [&](LanguageModelImpl& model) {  // [2b]: the chosen texts', then the rejected ones'
    return response_logprobs(model, torch::cat({batch.chosen, batch.rejected}),
                             torch::cat({batch.chosen_mask, batch.rejected_mask}));
  };
  const int64_t b = batch.chosen.size(0);
  torch::Tensor policy_chosen, policy_rejected;
  if (policy.is_training()) {
    policy_chosen = response_logprobs(policy, batch.chosen, batch.chosen_mask);
    policy_rejected = response_logprobs(policy, batch.rejected, batch.rejected_mask);
  } else {
    const auto policy_both = both(policy);
    policy_chosen = policy_both.slice(0, 0, b);
    policy_rejected = policy_both.slice(0, b);
  }
  torch::Tensor reference_both;
  {
    torch::NoGradGuard no_grad;
    reference_both = both(reference);
  }
  return compute_dpo_loss(policy_chosen, policy_rejected, reference_both.slice(0, 0, b), reference_both.slice(0, b),
                          beta);
}

}  // namespace llm
