#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "llm/train/distributed.h"

namespace llm {

/// DistributedDataParallel's gradient averaging. The parameters are put in buckets
/// of about bucket_bytes, in reverse order, the order backward produces their
/// gradients in. After arm(), as soon as backward has accumulated the last gradient of
/// a bucket, that bucket is flattened and its all-reduce started, while backward goes
/// on with the layers before; finish() waits for them and writes the averages back.
/// Buckets start in the same order on every rank, as Gloo requires.
class GradientSync {
 public:
  GradientSync(ProcessGroup& group, const std::vector<torch::Tensor>& parameters,
               int64_t bucket_bytes = int64_t{25} << 20);
  ~GradientSync();

  /// The next backward's gradients are the step's (with gradient accumulation, arm
  /// before the last micro-batch's backward).
  void arm();
  /// Waits for every bucket and sets each gradient to its mean over the ranks.
  void finish();
  int64_t buckets() const;
  /// How many of the last step's buckets started while backward was running (the
  /// rest start in finish(): those holding a parameter backward did not reach).
  int64_t buckets_started_in_backward() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace llm
