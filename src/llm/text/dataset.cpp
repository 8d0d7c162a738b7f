#include "llm/text/dataset.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

SlidingWindowDataset::SlidingWindowDataset(torch::Tensor token_ids, int64_t max_length, int64_t stride) {
  if (token_ids.dim() != 1) {
    throw Error(fmt::format("dataset: token ids must be 1-D, got {} dimensions", token_ids.dim()));
  }
  if (max_length <= 0) throw Error(fmt::format("dataset: max_length must be positive, got {}", max_length));
  if (stride <= 0) throw Error(fmt::format("dataset: stride must be positive, got {}", stride));
  if (token_ids.size(0) < max_length + 1) {
    throw Error(fmt::format("dataset: the text has {} tokens. max_length {} needs at least {}", token_ids.size(0),
                            max_length, max_length + 1));
  }
  // range(0, n - max_length, stride) in the lesson = every full window of max_length + 1.
  windows_ = token_ids.to(torch::kLong).contiguous().unfold(/*dimension=*/0, /*size=*/max_length + 1, stride);
}

std::pair<torch::Tensor, torch::Tensor> SlidingWindowDataset::get(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw Error(fmt::format("dataset: index {} is outside 0..{}", index, size() - 1));
  }
  const auto window = windows_[index];  // [max_length + 1]
  return {window.slice(0, 0, max_length()), window.slice(0, 1)};
}

std::pair<torch::Tensor, torch::Tensor> SlidingWindowDataset::get_batch(const torch::Tensor& indices) const {
  const auto rows = windows_.index_select(0, indices);  // [batch, max_length + 1]
  return {rows.slice(1, 0, max_length()).contiguous(), rows.slice(1, 1).contiguous()};
}

TokenFileDataset::TokenFileDataset(std::shared_ptr<const TokenFile> file, int64_t begin, int64_t end,
                                   int64_t max_length, int64_t stride)
    : file_(std::move(file)), begin_(begin), max_length_(max_length), stride_(stride) {
  if (!file_) throw Error("dataset: no token file");
  if (max_length <= 0) throw Error(fmt::format("dataset: max_length must be positive, got {}", max_length));
  if (stride <= 0) throw Error(fmt::format("dataset: stride must be positive, got {}", stride));
  if (begin < 0 || end > file_->size() || end - begin < max_length + 1) {
    throw Error(fmt::format("dataset: ids [{}, {}) of '{}' ({} tokens) hold no window of max_length + 1 = {}", begin,
                            end, file_->path().string(), file_->size(), max_length + 1));
  }
  size_ = (end - begin - max_length - 1) / stride + 1;  // range(0, n - max_length, stride)
}

std::pair<torch::Tensor, torch::Tensor> TokenFileDataset::get_batch(const torch::Tensor& indices) const {
  const auto starts = indices.to(torch::kLong).contiguous();
  const int64_t rows = starts.numel(), width = max_length_ + 1;
  auto windows = torch::empty({rows, width}, torch::kLong);
  const int64_t* start = starts.data_ptr<int64_t>();
  int64_t* out = windows.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    if (start[r] < 0 || start[r] >= size_) {
      throw Error(fmt::format("dataset: window {} is outside 0..{}", start[r], size_ - 1));
    }
    file_->read(begin_ + start[r] * stride_, width, out + r * width);
  }
  return {windows.slice(1, 0, max_length_).contiguous(), windows.slice(1, 1).contiguous()};
}

}  // namespace llm
