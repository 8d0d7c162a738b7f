#include "llm/text/distributed_sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

DistributedSampler::DistributedSampler(int64_t size, int64_t num_replicas, int64_t rank, bool shuffle, int64_t seed,
                                       bool drop_last)
    : size_(size), num_replicas_(num_replicas), rank_(rank), seed_(seed), shuffle_(shuffle) {
  if (num_replicas <= 0 || rank < 0 || rank >= num_replicas) {
    throw Error(fmt::format("distributed sampler: rank {} is outside 0..{} ({} replicas)", rank, num_replicas - 1,
                            num_replicas));
  }
  if (size <= 0) throw Error("distributed sampler: the dataset is empty");
  // PyTorch: ceil((size - replicas) / replicas) with drop_last and a remainder, else ceil(size / replicas).
  num_samples_ = drop_last && size % num_replicas != 0 ? (size - num_replicas + num_replicas - 1) / num_replicas
                                                       : (size + num_replicas - 1) / num_replicas;
  if (num_samples_ == 0) {
    throw Error(fmt::format("distributed sampler: {} windows leave none for each of {} ranks with drop_last", size,
                            num_replicas));
  }
}

torch::Tensor DistributedSampler::indices(int64_t epoch) const {
  torch::Tensor order;
  if (shuffle_) {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed_ + epoch));
    order = torch::randperm(size_, generator, torch::kLong);
  } else {
    order = torch::arange(size_, torch::kLong);
  }
  // drop_last made num_samples small enough that total <= size: the slice below cuts.
  const int64_t total = num_samples_ * num_replicas_;
  if (total > size_) {
    order = torch::cat({order, order.repeat((total - size_ + size_ - 1) / size_).slice(0, 0, total - size_)});
  }
  return order.slice(0, rank_, total, num_replicas_).clone();
}

}  // namespace llm
