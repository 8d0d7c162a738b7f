#pragma once

#include <cstdint>
#include <utility>

#include "llm/model/language_model.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/train/train_config.h"

namespace lesson {

/// Lesson 5.1.3's cells on run.data (the bonus notebooks of ch05/14 print the same):
/// the text's first and last 99 characters, its characters and tokens, the loaders'
/// batch shapes and tokens (run's train_ratio and batch_size, windows of max_length
/// tokens), the device, then the model's loss on each part, the training batches in
/// the order seed 123 shuffles them, as the lesson seeds it. Returns the training and
/// validation losses.
std::pair<double, double> print_text_losses(const llm::TrainConfig& run, llm::LanguageModelImpl& model,
                                            const llm::BpeTokenizer& tokenizer, int64_t max_length,
                                            torch::Device device);

}  // namespace lesson
