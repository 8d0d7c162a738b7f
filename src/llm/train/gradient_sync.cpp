#include "llm/train/gradient_sync.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <algorithm>
#include <tuple>

#include "llm/util/error.h"

namespace llm {
namespace {

// torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES: the first bucket is small, so that
// the first all-reduce starts early in backward.
constexpr int64_t kFirstBucketBytes = int64_t{1} << 20;

}  // namespace

GradientSync::GradientSync(ProcessGroup& group, const std::vector<torch::Tensor>& parameters,
                           bool find_unused_parameters, int64_t bucket_bytes)
    : group_(group) {
  const auto process_group = group.c10d_group();
  try {
    // As DistributedDataParallel's constructor: the same parameters on every rank, then
    // the buckets by size, in the order backward will fill them.
    c10d::verify_params_across_processes(process_group, parameters, c10::nullopt);
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: the ranks' models differ ({})", group.rank(), first_line(e.what())));
  }
  const std::vector<bool> dense(parameters.size(), false);
  const int64_t first_bucket_bytes = std::min(kFirstBucketBytes, bucket_bytes);
  auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(
      parameters, {static_cast<size_t>(first_bucket_bytes), static_cast<size_t>(bucket_bytes)}, dense);
  std::reverse(buckets.begin(), buckets.end());
  std::reverse(limits.begin(), limits.end());
  reducer_ = std::make_unique<c10d::Reducer>(parameters, std::move(buckets), std::move(limits), process_group, dense,
                                             bucket_bytes, find_unused_parameters, /*gradient_as_bucket_view=*/false,
                                             std::unordered_map<size_t, std::string>{}, first_bucket_bytes);
}

GradientSync::~GradientSync() = default;

void GradientSync::backward(const torch::Tensor& loss) {
  try {
    // What DDP's forward does before a step that synchronizes: after the first one, the
    // buckets are rebuilt once in the order backward produced the gradients (rank 0's
    // order, on every rank).
    reducer_->rebuild_buckets();
    reducer_->prepare_for_forward();
    reducer_->prepare_for_backward({loss});
    loss.backward();
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: lost the other ranks while averaging gradients ({}); another rank has stopped "
                            "or did not answer within {} s",
                            group_.rank(), first_line(e.what()), group_.config().timeout.count()));
  }
}

int64_t GradientSync::buckets() const { return static_cast<int64_t>(reducer_->get_grad_buckets(false).size()); }

}  // namespace llm
