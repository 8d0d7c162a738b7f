#include "llm/text/classification_dataset.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/util/error.h"

namespace llm {

ClassificationDataset::ClassificationDataset(const std::vector<Example>& rows, const BpeTokenizer& tokenizer,
                                             std::optional<int64_t> max_length, std::string_view source,
                                             int64_t pad_token_id) {
  if (rows.empty()) throw Error(fmt::format("{}: no examples; expected at least one labelled text", source));
  if (max_length && *max_length < 1) {
    throw Error(fmt::format("{}: max_length must be positive, got {}", source, *max_length));
  }
  std::vector<std::vector<int64_t>> encoded;
  int64_t longest = 0;
  encoded.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].text.find("<|endoftext|>") != std::string::npos) {
      throw Error(fmt::format("{}: example {} holds the special token <|endoftext|>, which tiktoken's encode refuses "
                              "in a text; expected plain text",
                              source, i + 1));
    }
    encoded.push_back(tokenizer.encode(rows[i].text));
    longest = std::max<int64_t>(longest, static_cast<int64_t>(encoded.back().size()));
  }
  const int64_t length = max_length.value_or(longest);
  inputs_ = torch::full({static_cast<int64_t>(rows.size()), length}, pad_token_id, torch::kLong);
  labels_ = torch::empty({static_cast<int64_t>(rows.size())}, torch::kLong);
  auto inputs = inputs_.accessor<int64_t, 2>();
  auto labels = labels_.accessor<int64_t, 1>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto kept = std::min<int64_t>(length, static_cast<int64_t>(encoded[i].size()));  // truncated to max_length
    for (int64_t t = 0; t < kept; ++t) inputs[static_cast<int64_t>(i)][t] = encoded[i][t];
    labels[static_cast<int64_t>(i)] = rows[i].label;
  }
}

std::pair<torch::Tensor, torch::Tensor> ClassificationDataset::get_batch(const torch::Tensor& indices) const {
  return {inputs_.index_select(0, indices), labels_.index_select(0, indices)};  // [b, max_length], [b]
}

}  // namespace llm
