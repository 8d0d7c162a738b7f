#include "llm/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace llm {

double learning_rate(const TrainConfig& config, int64_t step, int64_t total_steps) {
  if (step < config.warmup_steps) {
    const double increment = (config.lr - config.initial_lr) / static_cast<double>(config.warmup_steps);
    return config.initial_lr + static_cast<double>(step) * increment;
  }
  if (config.lr_schedule != "cosine" || total_steps <= config.warmup_steps) return config.lr;
  const double progress = std::min(1.0, static_cast<double>(step - config.warmup_steps) /
                                            static_cast<double>(total_steps - config.warmup_steps));
  return config.min_lr + (config.lr - config.min_lr) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace llm
