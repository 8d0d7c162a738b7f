#pragma once

#include <cstdint>

#include "llm/train/train_config.h"

namespace llm {

/// The learning rate of optimizer step `step` (from 0) of a run of `total_steps`, as
/// the course's appendix D computes it: a linear warmup from initial_lr to lr over
/// warmup_steps, then lr (constant) or a cosine decay that reaches min_lr at the end.
double learning_rate(const TrainConfig& config, int64_t step, int64_t total_steps);

}  // namespace llm
