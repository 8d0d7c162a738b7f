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

}  // namespace llm
