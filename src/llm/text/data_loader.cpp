#include "llm/text/data_loader.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include "llm/util/error.h"
#include "llm/util/show.h"

namespace llm {
namespace {

// torch.empty((), dtype=torch.int64).random_(): one draw from the global generator.
int64_t draw_seed() { return torch::empty({}, torch::kLong).random_().item<int64_t>(); }

}  // namespace

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_) throw Error("data loader: no dataset");
  if (options_.batch_size() <= 0) {
    throw Error(fmt::format("data loader: batch_size must be positive, got {}", options_.batch_size()));
  }
  if (options_.replacement() && (!options_.shuffle() || options_.sampler() || options_.num_samples() <= 0)) {
    throw Error(fmt::format("data loader: drawing with replacement needs shuffle, no distributed sampler and a "
                            "positive num_samples, got {}",
                            options_.num_samples()));
  }
  if (options_.sampler() && options_.sampler()->size() != dataset_->size()) {
    throw Error(fmt::format("data loader: the distributed sampler covers {} examples, the dataset has {}",
                            options_.sampler()->size(), dataset_->size()));
  }
  if (size() == 0) {
    throw Error(fmt::format("data loader: {} examples make no batch of {} with drop_last; use a smaller batch_size",
                            examples(), options_.batch_size()));
  }
}

int64_t DataLoader::size() const {
  const int64_t n = examples(), b = options_.batch_size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() const {
  draw_seed();  // _BaseDataLoaderIter's base seed: unused without workers, but drawn
  torch::Tensor order;
  if (options_.sampler()) {
    order = options_.sampler()->indices(epoch_);
  } else if (options_.shuffle()) {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(draw_seed()));
    // RandomSampler draws 32 at a time: the same numbers as one draw of them all.
    order = options_.replacement()
                ? torch::randint(dataset_->size(), {options_.num_samples()}, generator, torch::kLong)
                : torch::randperm(dataset_->size(), generator, torch::kLong);
  } else {
    order = torch::arange(dataset_->size(), torch::kLong);
  }
  return Iterator(this, std::move(order), 0);
}

int64_t DataLoader::examples() const {
  if (options_.sampler()) return options_.sampler()->num_samples();
  return options_.replacement() ? options_.num_samples() : dataset_->size();
}

DataLoader::Iterator DataLoader::end() const { return Iterator(this, torch::Tensor(), size()); }

DataLoader::Iterator DataLoader::resume(torch::Tensor order, int64_t index) const {
  if (order.dim() != 1 || order.size(0) != examples() || order.scalar_type() != torch::kLong) {
    throw Error(fmt::format("data loader: a saved example order must be {} int64 indices, got {} of {}", examples(),
                            shape(order), c10::toString(order.scalar_type())));
  }
  if (order.numel() > 0 && (order.min().item<int64_t>() < 0 || order.max().item<int64_t>() >= dataset_->size())) {
    throw Error(fmt::format("data loader: a saved window order holds indices outside [0, {})", dataset_->size()));
  }
  if (index < 0 || index > size()) {
    throw Error(fmt::format("data loader: a saved position must be in [0, {}], got {}", size(), index));
  }
  return Iterator(this, std::move(order), index);
}

DataLoader::Iterator::Iterator(const DataLoader* loader, torch::Tensor order, int64_t index)
    : loader_(loader), order_(std::move(order)), index_(index) {
  load();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++index_;
  load();
  return *this;
}

void DataLoader::Iterator::load() {
  if (index_ >= loader_->size()) {
    batch_ = {};
    return;
  }
  const int64_t b = loader_->options_.batch_size();
  const auto indices = order_.slice(0, index_ * b, std::min((index_ + 1) * b, order_.size(0)));
  auto [inputs, targets] = loader_->dataset_->get_batch(indices);
  batch_ = {std::move(inputs), std::move(targets)};
}

}  // namespace llm
