#pragma once

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "llm/train/distributed.h"

namespace llm {

// What the ranks of a data-parallel run agree on. Without a process group (a
// single-process run) each returns its input as it is. Every rank must call them.

/// The means of `a` and `b` (of each value) over the ranks: each rank measured its
/// share of a split.
std::pair<double, double> mean_over_ranks(ProcessGroup* group, double a, double b);
std::vector<double> mean_over_ranks(ProcessGroup* group, std::vector<double> values);

/// The step's loss as the mean over the ranks, and whether any rank asked to stop:
/// a stop requested on one rank stops all of them at the same step.
std::pair<double, bool> agree_across_ranks(ProcessGroup* group, double step_loss, bool stop);

/// The largest difference of any of `module`'s weights on any rank from rank 0's (0
/// when they are identical, and in a single-process run).
double rank_divergence(ProcessGroup* group, const torch::nn::Module& module);

}  // namespace llm
