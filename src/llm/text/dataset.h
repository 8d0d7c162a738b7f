#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <utility>

#include "llm/text/token_file.h"

namespace llm {

/// What a DataLoader batches: a fixed number of examples, each an input and a target.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  /// (inputs, targets) of the examples in `indices` (1-D int64), stacked along a new
  /// first dimension.
  virtual std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const = 0;
};

/// The lesson's GPTDatasetV1: overlapping windows over a token sequence. Window i
/// starts at i * stride; its input is max_length ids and its target is the same
/// span shifted one token to the right.
class SlidingWindowDataset final : public Dataset {
 public:
  /// `token_ids` is 1-D; it must hold at least max_length + 1 ids.
  SlidingWindowDataset(torch::Tensor token_ids, int64_t max_length, int64_t stride);

  int64_t size() const override { return windows_.size(0); }
  int64_t max_length() const { return windows_.size(1) - 1; }

  /// (input, target) of window `index`, each [max_length].
  std::pair<torch::Tensor, torch::Tensor> get(int64_t index) const;

  /// (inputs, targets) of the windows in `indices`, each [indices.size(0), max_length].
  std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const override;

 private:
  torch::Tensor windows_;  // [size, max_length + 1], a strided view of the ids
};

/// The same windows over ids [begin, end) of a memory-mapped token file: nothing is
/// copied until a batch is drawn, when its windows are read and widened to int64, so
/// a corpus far larger than memory trains as a small one does.
class TokenFileDataset final : public Dataset {
 public:
  /// [begin, end) must hold at least max_length + 1 ids.
  TokenFileDataset(std::shared_ptr<const TokenFile> file, int64_t begin, int64_t end, int64_t max_length,
                   int64_t stride);

  int64_t size() const override { return size_; }
  int64_t max_length() const { return max_length_; }
  std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const override;

 private:
  std::shared_ptr<const TokenFile> file_;
  int64_t begin_, max_length_, stride_, size_;
};

}  // namespace llm
