#include "llm/train/loss.h"

#include <cmath>

namespace llm {

torch::Tensor token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.flatten(0, 1),  // [b * t, vocab]
                                              targets.flatten());    // [b * t]
}

namespace {

// Saves the log-probabilities [n, vocab] instead of the logits; the gradient of the
// mean loss with respect to the logits is (softmax - one_hot) / n, and the 1 / n is
// applied to the smaller operand of each product.
struct LinearCrossEntropy : torch::autograd::Function<LinearCrossEntropy> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& hidden,
                               const torch::Tensor& weight, const torch::Tensor& targets) {
    auto log_probs = torch::log_softmax(hidden.mm(weight.t()), 1);  // [n, vocab]
    auto loss = -log_probs.gather(1, targets.unsqueeze(1)).mean();
    ctx->save_for_backward({hidden, weight, targets, log_probs});
    return loss;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto &hidden = saved[0], &weight = saved[1], &targets = saved[2];
    auto grad_logits = saved[3].exp_();  // the softmax, in the log-probabilities' memory
    grad_logits.scatter_add_(1, targets.unsqueeze(1), torch::full({targets.size(0), 1}, -1.0, grad_logits.options()));
    const auto scale = grad_outputs[0] / static_cast<double>(targets.size(0));
    return {grad_logits.mm(weight).mul_(scale), grad_logits.t().mm(hidden * scale), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor linear_cross_entropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                   const torch::Tensor& targets) {
  const auto flat = hidden.flatten(0, -2);  // [n, d]
  const auto flat_targets = targets.flatten();
  const auto kept = flat_targets != kIgnoreIndex;
  if (kept.all().item<bool>()) return LinearCrossEntropy::apply(flat, weight, flat_targets);
  // Chapter 7's padding targets: the mean over the other positions, as cross_entropy's
  // ignore_index has it, from only their rows.
  const auto rows = kept.nonzero().squeeze(1);
  return LinearCrossEntropy::apply(flat.index_select(0, rows), weight, flat_targets.index_select(0, rows));
}


torch::Tensor calc_loss_batch(LanguageModelImpl& model, const Batch& batch) {
  const auto device = model.device();
  const auto inputs = batch.inputs.to(device), targets = batch.targets.to(device);
  // A LoRA on out_head (appendix E) adds to the logits: the plain path computes them.
  const auto head = model.head();
  if (head->lora) return token_cross_entropy(model.forward(inputs), targets);
  const auto hidden = model.forward_hidden(inputs);
  // The head's weight as the hidden state's dtype: itself, unless decoding converted it
  // (--weights-dtype) or the model keeps it in bfloat16.
  return linear_cross_entropy(hidden, head->weight_as(hidden.scalar_type()), targets);
}

torch::Tensor calc_class_loss_batch(LanguageModelImpl& model, const Batch& batch, ClassToken token) {
  const auto device = model.device();
  return torch::nn::functional::cross_entropy(class_logits(model, batch.inputs.to(device), token),  // [b, classes]
                                              batch.targets.to(device));                           // [b]
}

std::vector<double> calc_figures_loader(LanguageModelImpl& model, const DataLoader& loader,
                                        std::optional<int64_t> num_batches, const BatchFigures& figures) {
  const int64_t n = std::min(num_batches.value_or(loader.size()), loader.size());
  torch::NoGradGuard no_grad;
  std::vector<double> totals;
  int64_t i = 0;
  for (auto it = loader.begin(); it != loader.end() && i < n; ++it, ++i) {
    const auto values = figures(model, *it).to(torch::kCPU, torch::kDouble).contiguous();
    totals.resize(static_cast<size_t>(values.numel()), 0.0);
    for (int64_t k = 0; k < values.numel(); ++k) totals[static_cast<size_t>(k)] += values.data_ptr<double>()[k];
  }
  if (totals.empty()) totals.push_back(0.0);  // no batch: the lesson's mean of nothing, nan
  for (auto& total : totals) total /= static_cast<double>(n);
  return totals;
}

double calc_loss_loader(LanguageModelImpl& model, const DataLoader& loader, std::optional<int64_t> num_batches,
                        const BatchLoss& loss) {
  return calc_figures_loader(model, loader, num_batches, [&loss](LanguageModelImpl& m, const Batch& batch) {
    return loss(m, batch).reshape({1});
  })[0];
}

double calc_accuracy_loader(LanguageModelImpl& model, const DataLoader& loader, std::optional<int64_t> num_batches,
                            ClassToken token) {
  model.eval();
  const int64_t n = std::min(num_batches.value_or(loader.size()), loader.size());
  torch::NoGradGuard no_grad;
  int64_t correct = 0, examples = 0;
  int64_t i = 0;
  for (auto it = loader.begin(); it != loader.end() && i < n; ++it, ++i) {
    const auto predicted = class_logits(model, it->inputs.to(model.device()), token).argmax(-1);  // [b]
    examples += predicted.size(0);
    correct += (predicted == it->targets.to(predicted.device())).sum().item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(examples);
}

}  // namespace llm
