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

namespace {

// Lesson 7.3's datasets of config.data's entries.
TrainValData load_instructions(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  TrainValData data;
  data.instructions = split_instruction_data(read_instruction_data(path));
  InstructionDataset::Options options;
  options.style = parse_prompt_style(config.prompt_style);
  options.mask_instructions = config.mask_instructions;
  options.allowed_max_length = context_length;  // the lesson's 1024, GPT-2's context
  const auto& [train, test, validation] = data.instructions;
  if (static_cast<int64_t>(train.size()) < config.batch_size || validation.empty()) {
    throw Error(fmt::format("'{}': {} entries make {} training and {} validation entries; expected at least "
                            "batch_size {} and 1",
                            path.string(), train.size() + test.size() + validation.size(), train.size(),
                            validation.size(), config.batch_size));
  }
  // A prompt that fills the context leaves no room for its response: in training, the
  // cut would remove all of it; in lesson 7.7, the response would be generated blind.
  for (const auto* split : {&train, &test, &validation}) {
    for (const auto& entry : *split) {
      const auto tokens = static_cast<int64_t>(tokenizer.encode(format_input(entry, options.style)).size());
      if (tokens >= context_length) {
        const auto index = (split == &train ? 0 : split == &test ? train.size() : train.size() + test.size()) +
                           static_cast<size_t>(&entry - split->data());
        throw Error(fmt::format("'{}': entry {}: its prompt has {} tokens, as many as the model's context_length {} "
                                "or more; shorten it, or use a model with a longer context",
                                path.string(), index, tokens, context_length));
      }
    }
  }
  data.train = std::make_shared<const InstructionDataset>(train, tokenizer, options);
  data.val = std::make_shared<const InstructionDataset>(validation, tokenizer, options);
  return data;
}

}  // namespace

TrainValData load_train_val(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  if (config.instructs()) return load_instructions(config, context_length, tokenizer);
  if (!config.classifies()) {
    return split_train_val(read_text_file(path), tokenizer, config, context_length, path.string());
  }
  const auto split = [&](const char* name, std::optional<int64_t> max_length) {
    const auto file = path / name;
    auto dataset = std::make_shared<const ClassificationDataset>(read_examples_csv(file), tokenizer, max_length,
                                                                 fmt::format("'{}'", file.string()));
    if (const auto label = dataset->labels().max().item<int64_t>(); label >= config.num_classes) {
      throw Error(fmt::format("'{}': label {}, but the head has num_classes {}; expected labels 0..{}", file.string(),
                              label, config.num_classes, config.num_classes - 1));
    }
    return dataset;
  };
  auto train = split("train.csv", config.max_length > 0 ? std::optional<int64_t>(config.max_length) : std::nullopt);
  if (train->max_length() > context_length) {  // the lesson's assert, and what to do about it
    throw Error(fmt::format("'{}': the longest training text has {} tokens, more than the model's context_length {}; "
                            "set max_length to at most {} to cut the texts",
                            (path / "train.csv").string(), train->max_length(), context_length, context_length));
  }
  if (train->size() < config.batch_size) {
    throw Error(fmt::format("'{}': {} examples, fewer than batch_size {}; use a smaller batch_size",
                            (path / "train.csv").string(), train->size(), config.batch_size));
  }
  TrainValData data;
  data.max_length = train->max_length();
  data.val = split("validation.csv", train->max_length());
  data.test = split("test.csv", train->max_length());
  data.train = std::move(train);
  return data;
}

}  // namespace llm
