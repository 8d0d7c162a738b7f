#include "llm/train/train_data.h"

#include <fmt/format.h>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

std::shared_ptr<const SlidingWindowDataset> sliding_windows(const std::vector<int64_t>& ids, int64_t context_length,
                                                            int64_t stride, const std::string& what) {
  if (static_cast<int64_t>(ids.size()) <= context_length) {
    throw Error(fmt::format("{} has {} tokens, but one window needs context_length + 1 = {}; use more text, "
                            "another train_ratio or a smaller context_length",
                            what, ids.size(), context_length + 1));
  }
  return std::make_shared<const SlidingWindowDataset>(torch::tensor(ids, torch::kLong), context_length, stride);
}

}  // namespace

TrainValData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source) {
  const int64_t characters = utf8_length(text);
  const auto split = static_cast<int64_t>(config.train_ratio * static_cast<double>(characters));
  const size_t offset = utf8_offset(text, split);
  const auto train_ids = tokenizer.encode(text.substr(0, offset), {"<|endoftext|>"});
  const auto val_ids = tokenizer.encode(text.substr(offset), {"<|endoftext|>"});
  const int64_t stride = config.stride > 0 ? config.stride : context_length;
  TrainValData data;
  data.train = sliding_windows(
      train_ids, context_length, stride,
      fmt::format("the training part of '{}' (its first {} of {} characters)", source, split, characters));
  data.val = sliding_windows(val_ids, context_length, stride,
                             fmt::format("the validation part of '{}' (its last {} of {} characters)", source,
                                         characters - split, characters));
  data.train_tokens = static_cast<int64_t>(train_ids.size());
  data.val_tokens = static_cast<int64_t>(val_ids.size());
  if (data.train->size() < config.batch_size) {
    throw Error(fmt::format("the training part of '{}' makes {} windows of {} tokens, fewer than batch_size {}; use "
                            "more text, a smaller batch_size, stride or context_length",
                            source, data.train->size(), context_length, config.batch_size));
  }
  return data;
}

TrainValData load_train_val(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  return split_train_val(read_text_file(path), tokenizer, config, context_length, path.string());
}

}  // namespace llm
