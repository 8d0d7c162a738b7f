#include "llm/train/ranks.h"

#include <algorithm>
#include <vector>

namespace llm {

std::pair<double, double> mean_over_ranks(ProcessGroup* group, double a, double b) {
  const auto means = mean_over_ranks(group, std::vector<double>{a, b});
  return {means[0], means[1]};
}

std::vector<double> mean_over_ranks(ProcessGroup* group, std::vector<double> values) {
  if (group == nullptr || values.empty()) return values;
  auto shared = torch::tensor(values, torch::kDouble);
  group->all_reduce_sum(shared);
  shared /= static_cast<double>(group->world_size());
  return std::vector<double>(shared.data_ptr<double>(), shared.data_ptr<double>() + shared.numel());
}

// One small all-reduce for both.
std::pair<double, bool> agree_across_ranks(ProcessGroup* group, double step_loss, bool stop) {
  if (group == nullptr) return {step_loss, stop};
  auto shared = torch::tensor({step_loss, stop ? 1.0 : 0.0}, torch::kDouble);
  group->all_reduce_sum(shared);
  return {shared[0].item<double>() / static_cast<double>(group->world_size()), shared[1].item<double>() > 0};
}

double rank_divergence(ProcessGroup* group, const torch::nn::Module& module) {
  if (group == nullptr) return 0.0;
  torch::NoGradGuard no_grad;
  const auto parameters = module.parameters();
  std::vector<torch::Tensor> rank0;
  for (const auto& p : parameters) rank0.push_back(p.detach().clone());
  group->broadcast(rank0);
  double largest = 0.0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    largest = std::max(largest, (parameters[i] - rank0[i]).abs().max().item<double>());
  }
  auto shared = torch::tensor({largest}, torch::kDouble);
  group->all_reduce_max(shared);
  return shared.item<double>();
}

}  // namespace llm
