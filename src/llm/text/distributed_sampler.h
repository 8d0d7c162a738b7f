#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace llm {

/// PyTorch's torch.utils.data.DistributedSampler: which windows rank `rank` of
/// `num_replicas` reads in an epoch. The epoch's order is a permutation drawn from a
/// generator seeded with seed + epoch (0 .. size-1 without shuffle); it is padded by
/// repeating its start to a multiple of num_replicas (or cut to one with drop_last),
/// and each rank takes every num_replicas-th index from its own rank on. The ranks'
/// shares are disjoint apart from the padding, and the same in every process.
class DistributedSampler {
 public:
  DistributedSampler(int64_t size, int64_t num_replicas, int64_t rank, bool shuffle = true, int64_t seed = 0,
                     bool drop_last = false);

  /// This rank's window indices in `epoch` (num_samples() of them, int64).
  torch::Tensor indices(int64_t epoch) const;
  int64_t num_samples() const { return num_samples_; }
  int64_t size() const { return size_; }

 private:
  int64_t size_, num_replicas_, rank_, seed_, num_samples_;
  bool shuffle_;
};

}  // namespace llm
