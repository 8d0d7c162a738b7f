#include "llm/train/pretrain_task.h"

#include <fmt/format.h>

#include <set>

#include "llm/text/token_corpus.h"
#include "llm/text/token_file.h"
#include "llm/train/loss.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

// An llm::Error unless `tokens` make a window of context_length + 1.
void check_window(int64_t tokens, int64_t context_length, const std::string& what) {
  if (tokens <= context_length) {
    throw Error(fmt::format("{} has {} tokens, but one window needs context_length + 1 = {}; use more text, "
                            "another train_ratio or a smaller context_length",
                            what, tokens, context_length + 1));
  }
}

// Windows stride apart, or, for random windows, one at every token.
int64_t window_stride(const TrainConfig& config, int64_t context_length) {
  if (config.random_windows()) return 1;
  return config.stride > 0 ? config.stride : context_length;
}

std::shared_ptr<const Dataset> sliding_windows(const std::vector<int64_t>& ids, int64_t context_length,
                                               int64_t stride, const std::string& what) {
  check_window(static_cast<int64_t>(ids.size()), context_length, what);
  return std::make_shared<const SlidingWindowDataset>(torch::tensor(ids, torch::kLong), context_length, stride);
}

// The checks and counts every pretraining split ends with.
PretrainData finish(PretrainData data, const TrainConfig& config, int64_t context_length, const std::string& source) {
  if (config.random_windows()) {  // an epoch: the windows of the text without overlap
    data.split.train_samples = (data.train_tokens - context_length - 1) / context_length + 1;
    data.split.val_samples = (data.val_tokens - context_length - 1) / context_length + 1;
  }
  const int64_t windows = config.random_windows() ? data.split.train_samples : data.split.train->size();
  if (windows < config.batch_size) {
    throw Error(fmt::format("the training part of '{}' makes {} windows of {} tokens, fewer than batch_size {}; use "
                            "more text, a smaller batch_size, stride or context_length",
                            source, windows, context_length, config.batch_size));
  }
  return data;
}

std::shared_ptr<const TokenFile> open_token_file(const std::filesystem::path& path, const BpeTokenizer& tokenizer) {
  auto file = std::make_shared<const TokenFile>(path);
  file->check_vocabulary(tokenizer);
  return file;
}

// A token file's split: by train_ratio of its tokens, or all of it against val_data's.
PretrainData split_token_file(const std::filesystem::path& path, const BpeTokenizer& tokenizer,
                              const TrainConfig& config, int64_t context_length) {
  const auto file = open_token_file(path, tokenizer);
  auto val_file = file;
  int64_t train_end = file->size(), val_begin = 0;
  std::string train_what, val_what;
  if (!config.val_data.empty()) {
    const auto val_path = data_path(config.val_data);
    if (!is_token_file(val_path)) {
      throw Error(fmt::format("val_data '{}': not a token file; with a token file as data, expected another one "
                              "(prepare --val-fraction or --val-data writes it)",
                              val_path.string()));
    }
    val_file = open_token_file(val_path, tokenizer);
    train_what = fmt::format("the token file '{}'", path.string());
    val_what = fmt::format("the validation token file '{}'", val_path.string());
  } else {
    train_end = val_begin = static_cast<int64_t>(config.train_ratio * static_cast<double>(file->size()));
    train_what = fmt::format("the training part of '{}' (its first {} of {} tokens)", path.string(), train_end,
                             file->size());
    val_what = fmt::format("the validation part of '{}' (its last {} of {} tokens)", path.string(),
                           file->size() - val_begin, file->size());
  }
  PretrainData data;
  data.train_tokens = train_end;
  data.val_tokens = val_file->size() - val_begin;
  check_window(data.train_tokens, context_length, train_what);
  check_window(data.val_tokens, context_length, val_what);
  const int64_t stride = window_stride(config, context_length);
  data.split.train = std::make_shared<const TokenFileDataset>(file, 0, train_end, context_length, stride);
  data.split.val = std::make_shared<const TokenFileDataset>(val_file, val_begin, val_file->size(), context_length, stride);
  return finish(std::move(data), config, context_length, path.string());
}

// A text trained on whole, validated on val_data's text.
PretrainData text_and_validation(const std::filesystem::path& path, const BpeTokenizer& tokenizer,
                                 const TrainConfig& config, int64_t context_length) {
  const auto val_path = data_path(config.val_data);
  if (is_token_file(val_path)) {
    throw Error(fmt::format("val_data '{}': a token file, but data '{}' is text; expected text for both, or token "
                            "files for both",
                            val_path.string(), path.string()));
  }
  const auto allowed = end_of_text_allowed(tokenizer);
  const auto train_ids = tokenizer.encode(read_text_file(path), allowed);
  const auto val_ids = tokenizer.encode(read_text_file(val_path), allowed);
  const int64_t stride = window_stride(config, context_length);
  PretrainData data;
  data.split.train = sliding_windows(train_ids, context_length, stride, fmt::format("the text '{}'", path.string()));
  data.split.val = sliding_windows(val_ids, context_length, stride,
                             fmt::format("the validation text '{}'", val_path.string()));
  data.train_tokens = static_cast<int64_t>(train_ids.size());
  data.val_tokens = static_cast<int64_t>(val_ids.size());
  return finish(std::move(data), config, context_length, path.string());
}

}  // namespace

PretrainData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source) {
  const int64_t characters = utf8_length(text);
  const auto split = static_cast<int64_t>(config.train_ratio * static_cast<double>(characters));
  const size_t offset = utf8_offset(text, split);
  const auto train_ids = tokenizer.encode(text.substr(0, offset), end_of_text_allowed(tokenizer));
  const auto val_ids = tokenizer.encode(text.substr(offset), end_of_text_allowed(tokenizer));
  const int64_t stride = window_stride(config, context_length);
  PretrainData data;
  data.split.train = sliding_windows(
      train_ids, context_length, stride,
      fmt::format("the training part of '{}' (its first {} of {} characters)", source, split, characters));
  data.split.val = sliding_windows(val_ids, context_length, stride,
                             fmt::format("the validation part of '{}' (its last {} of {} characters)", source,
                                         characters - split, characters));
  data.train_tokens = static_cast<int64_t>(train_ids.size());
  data.val_tokens = static_cast<int64_t>(val_ids.size());
  return finish(std::move(data), config, context_length, source);
}

PretrainData load_pretrain_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  if (is_token_file(path)) return split_token_file(path, tokenizer, config, context_length);
  if (!config.val_data.empty()) return text_and_validation(path, tokenizer, config, context_length);
  return split_train_val(read_text_file(path), tokenizer, config, context_length, path.string());
}

void PretrainTask::check_config(const TrainConfig& config, std::string_view source) const {
  if (config.uses_lora()) {
    throw Error(fmt::format("{}: lora_rank must be 0 when pretraining (LoRA finetunes: task classify or instruct), "
                            "got {}",
                            source, config.lora_rank));
  }
}

void PretrainTask::load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  data_ = load_pretrain_data(config, context_length, tokenizer);
  split_ = data_.split;
}

// The lesson's order: seed, model, then (in the trainer) the optimizer; data loading
// draws nothing until an epoch starts.
LanguageModel PretrainTask::make_model(const ModelConfig& model_config, const TrainConfig& /*config*/,
                                  const NamedTensors& weights, const std::string& source,
                                  const LessonSeeds& seeds) {
  return base_model(model_config, weights, source, seeds);
}

torch::Tensor PretrainTask::batch_loss(LanguageModelImpl& model, const Batch& batch) const {
  return calc_loss_batch(model, batch);
}

void PretrainTask::end_epoch(Trainer& trainer, const TrainHooks& hooks) const { sample_after_epoch(trainer, hooks); }

}  // namespace llm
