#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>

#include "llm/text/dataset.h"
#include "llm/text/distributed_sampler.h"

namespace llm {

struct DataLoaderOptions {
  DataLoaderOptions(int64_t batch_size = 4) : batch_size_(batch_size) {}  // NOLINT: implicit like LibTorch's
  /// Examples per batch.
  TORCH_ARG(int64_t, batch_size);
  /// Visit the examples in a new random order each epoch.
  TORCH_ARG(bool, shuffle) = true;
  /// Leave out a last batch that would be smaller than batch_size.
  TORCH_ARG(bool, drop_last) = true;
  /// With shuffle: draw num_samples examples each epoch, with replacement, as
  /// RandomSampler(dataset, replacement=True, num_samples) does, instead of a
  /// permutation of all of them.
  TORCH_ARG(bool, replacement) = false;
  TORCH_ARG(int64_t, num_samples) = 0;
  /// In a data-parallel run: this rank's share of each epoch, instead of shuffle.
  TORCH_ARG(std::shared_ptr<const DistributedSampler>, sampler);
};

struct Batch {
  torch::Tensor inputs;   // [batch, max_length]
  torch::Tensor targets;  // [batch, max_length] (next tokens) or [batch] (classes)
};

/// Batches of a Dataset (the lesson's sliding windows, or chapter 6's labelled texts)
/// that come out exactly as PyTorch's
/// DataLoader(dataset, batch_size, shuffle, drop_last, num_workers=0) gives them
/// after the same torch.manual_seed, and that leave the global generator in the same
/// state. Each epoch (each begin()) draws what PyTorch draws:
///   1. one int64 "base seed" from the global generator, even without shuffling;
///   2. with shuffling, one more int64 that seeds a fresh generator, whose randperm
///      is the epoch's order (RandomSampler), or, with replacement, whose randint
///      draws are.
class DataLoader {
 public:
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = const Batch*;
    using reference = const Batch&;

    const Batch& operator*() const { return batch_; }
    const Batch* operator->() const { return &batch_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

    /// The epoch's example order and the number of the batch this iterator is at:
    /// what resume() needs to continue the epoch from here.
    const torch::Tensor& order() const { return order_; }
    int64_t index() const { return index_; }

   private:
    friend class DataLoader;
    Iterator(const DataLoader* loader, torch::Tensor order, int64_t index);
    void load();

    const DataLoader* loader_ = nullptr;
    torch::Tensor order_;  // the epoch's example indices
    int64_t index_ = 0;    // batch number
    Batch batch_;
  };

  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options);

  /// Starts an epoch, drawing from the global generator as PyTorch does.
  Iterator begin() const;
  Iterator end() const;

  /// Continues an epoch at batch `index` of the example order `order` (from an
  /// Iterator's order() and index()), without drawing from the generator.
  Iterator resume(torch::Tensor order, int64_t index) const;
  /// The epoch the distributed sampler draws the next begin()'s order for, as
  /// DistributedSampler.set_epoch.
  void set_epoch(int64_t epoch) const { epoch_ = epoch; }

  /// Batches per epoch.
  int64_t size() const;
  /// The examples an epoch reads: the dataset's, or this rank's share of them.
  int64_t examples() const;
  const DataLoaderOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  mutable int64_t epoch_ = 0;
};

}  // namespace llm
