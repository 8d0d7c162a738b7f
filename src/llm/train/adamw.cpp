#include "llm/train/adamw.h"

#include <ATen/Parallel.h>
#include <c10/util/irange.h>

#include <cmath>

namespace llm {
namespace {

/// The scalars of one parameter's update, as LibTorch's AdamW::step computes them.
struct Update {
  float decay;            // 1 - lr * weight_decay
  float beta1, one_minus_beta1;
  float beta2, one_minus_beta2;
  float bias_correction2_sqrt;
  float eps;
  float step_size;        // lr / bias_correction1
};

void fused_update(const Update& u, float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n) {
  at::parallel_for(0, n, 1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float g = grad[i];
      const float m = exp_avg[i] * u.beta1 + u.one_minus_beta1 * g;
      const float v = exp_avg_sq[i] * u.beta2 + u.one_minus_beta2 * (g * g);
      const float denom = std::sqrt(v) / u.bias_correction2_sqrt + u.eps;
      exp_avg[i] = m;
      exp_avg_sq[i] = v;
      param[i] = param[i] * u.decay + (-u.step_size * m) / denom;
    }
  });
}

bool fusable(const torch::Tensor& t) { return t.is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous(); }

}  // namespace

torch::Tensor AdamW::step(LossClosure closure) {
  for (const auto& group : param_groups_) {
    if (static_cast<const torch::optim::AdamWOptions&>(group.options()).amsgrad())
      return torch::optim::AdamW::step(std::move(closure));
  }
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    const auto [beta1, beta2] = options.betas();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const auto& grad = p.grad();
      TORCH_CHECK(!grad.is_sparse(), "AdamW does not support sparse gradients");
      auto& slot = state_[state_key(p)];
      if (!slot) {
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*slot);
      state.step(state.step() + 1);
      const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(state.step()));
      const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(state.step()));
      auto& exp_avg = state.exp_avg();
      auto& exp_avg_sq = state.exp_avg_sq();
      if (fusable(p) && fusable(grad) && fusable(exp_avg) && fusable(exp_avg_sq)) {
        const Update u{static_cast<float>(1 - options.lr() * options.weight_decay()),
                       static_cast<float>(beta1),
                       static_cast<float>(1 - beta1),
                       static_cast<float>(beta2),
                       static_cast<float>(1 - beta2),
                       static_cast<float>(std::sqrt(bias_correction2)),
                       static_cast<float>(options.eps()),
                       static_cast<float>(options.lr() / bias_correction1)};
        fused_update(u, p.data_ptr<float>(), grad.data_ptr<float>(), exp_avg.data_ptr<float>(),
                     exp_avg_sq.data_ptr<float>(), p.numel());
        continue;
      }
      // LibTorch's AdamW::step, operation by operation.
      if (options.weight_decay() != 0) p.mul_(1 - options.lr() * options.weight_decay());
      exp_avg.mul_(beta1).add_(grad, 1 - beta1);
      exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const auto denom = (exp_avg_sq.sqrt() / std::sqrt(bias_correction2)).add_(options.eps());
      p.addcdiv_(exp_avg, denom, -options.lr() / bias_correction1);
    }
  }
  return loss;
}

}  // namespace llm
