#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "llm/train/distributed.h"

namespace c10d {
class Reducer;
}

namespace llm {

/// DistributedDataParallel's gradient averaging, through the engine PyTorch's DDP
/// runs on: c10d's Reducer over the Gloo process group. As in DDP, the parameters go
/// into buckets in reverse order, the order backward produces their gradients in (a
/// first bucket of at most 1 MiB, then bucket_bytes each); each bucket's all-reduce starts as soon as
/// backward has accumulated its last gradient, while backward goes on with the layers
/// before, and the gradients are the means over the ranks when backward returns. With
/// `find_unused_parameters` (a mixture of experts, whose unrouted experts get no
/// gradient in a step), the parameters a backward does not reach take part with zeros.
class GradientSync {
 public:
  GradientSync(ProcessGroup& group, const std::vector<torch::Tensor>& parameters, bool find_unused_parameters = false,
               int64_t bucket_bytes = int64_t{25} << 20);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  /// The step's last backward (with gradient accumulation, the last micro-batch's; the
  /// earlier ones call loss.backward() themselves, as under DDP's no_sync): on return
  /// every gradient, summed over the micro-batches, is its mean over the ranks. A rank
  /// that stopped is an llm::Error.
  void backward(const torch::Tensor& loss);
  int64_t buckets() const;

 private:
  ProcessGroup& group_;
  std::unique_ptr<c10d::Reducer> reducer_;
};

}  // namespace llm
