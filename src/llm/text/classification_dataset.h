#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/labelled_examples.h"
#include "llm/text/dataset.h"

namespace llm {

/// Lesson 6.3's SpamDataset: each text encoded with the tokenizer, cut to max_length
/// when one is given, and padded with pad_token_id to max_length, or else to the
/// longest text. An example is (the padded ids [max_length], the label []).
class ClassificationDataset final : public Dataset {
 public:
  /// `source` names the rows in errors: no rows, a max_length below 1, or a text that
  /// holds <|endoftext|> (tiktoken's encode refuses it, and the lesson with it).
  ClassificationDataset(const std::vector<Example>& rows, const BpeTokenizer& tokenizer,
                        std::optional<int64_t> max_length, std::string_view source, int64_t pad_token_id = 50256);

  int64_t size() const override { return inputs_.size(0); }
  int64_t max_length() const { return inputs_.size(1); }

  std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const override;

  const torch::Tensor& inputs() const { return inputs_; }  // [size, max_length]
  const torch::Tensor& labels() const { return labels_; }  // [size]

 private:
  torch::Tensor inputs_, labels_;
};

}  // namespace llm
