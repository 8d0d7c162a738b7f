#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/dataset.h"
#include "llm/train/train_config.h"

namespace llm {

/// Lesson 5.2's data: the first train_ratio of the text's characters (Unicode code
/// points, as Python's len counts them) and the rest, each tokenized and cut into
/// windows of context_length tokens, stride apart.
struct TrainValData {
  std::shared_ptr<const SlidingWindowDataset> train, val;
  int64_t train_tokens = 0, val_tokens = 0;
};

/// That split of `text`; `source` names it in errors (too little text for a window
/// or a batch).
TrainValData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source);

/// The same for the run's text file (config.data, see data_path).
TrainValData load_train_val(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer);

}  // namespace llm
