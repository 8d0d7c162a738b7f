#include "llm/train/loss.h"

#include <cmath>

namespace llm {

torch::Tensor token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.flatten(0, 1),  // [b * t, vocab]
                                              targets.flatten());    // [b * t]
}

double perplexity(double loss) { return std::exp(loss); }

torch::Tensor calc_loss_batch(GPTModel& model, const Batch& batch) {
  return token_cross_entropy(model->forward(batch.inputs), batch.targets);
}

double calc_loss_loader(GPTModel& model, const DataLoader& loader, std::optional<int64_t> num_batches) {
  const int64_t n = std::min(num_batches.value_or(loader.size()), loader.size());
  torch::NoGradGuard no_grad;
  double total = 0.0;
  int64_t i = 0;
  for (auto it = loader.begin(); it != loader.end() && i < n; ++it, ++i) total += calc_loss_batch(model, *it).item<double>();
  return total / static_cast<double>(n);
}

}  // namespace llm
