#include "llm/text/preference_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

std::vector<PreferenceEntry> parse_preference_data(std::string_view json, std::string_view source) {
  std::vector<std::vector<std::string>> responses;
  auto entries = parse_instruction_data(json, source, {"chosen", "rejected"}, &responses);
  std::vector<PreferenceEntry> out;
  out.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    out.push_back({std::move(entries[i]), std::move(responses[i][0]), std::move(responses[i][1])});
  }
  return out;
}

std::vector<PreferenceEntry> read_preference_data(const std::filesystem::path& path) {
  return parse_preference_data(read_file(path), path.string());
}

PreferenceSplits split_preference_data(const std::vector<PreferenceEntry>& entries) {
  // Lesson 7.2's fractions: int(n * 0.85) train, int(n * 0.1) test, the rest validate.
  const auto n = static_cast<double>(entries.size());
  const auto train = static_cast<size_t>(n * 0.85), test = static_cast<size_t>(n * 0.1);
  const auto at = [&](size_t i) { return entries.begin() + static_cast<std::ptrdiff_t>(i); };
  return {{entries.begin(), at(train)}, {at(train), at(train + test)}, {at(train + test), entries.end()}};
}

std::string chosen_text(const PreferenceEntry& entry) {
  return format_input(entry.entry) + "\n\n### Response:\n" + entry.chosen;
}

std::string rejected_text(const PreferenceEntry& entry) {
  return format_input(entry.entry) + "\n\n### Response:\n" + entry.rejected;
}

PreferenceBatch PreferenceCollate::operator()(const std::vector<const PreferenceTokens*>& batch) const {
  size_t common = 0;  // the longest chosen or rejected text, plus one
  for (const auto* item : batch) common = std::max({common, item->chosen.size() + 1, item->rejected.size() + 1});
  const auto n = static_cast<int64_t>(batch.size());
  const auto length = static_cast<int64_t>(common);
  const int64_t kept = allowed_max_length > 0 ? std::min(length, allowed_max_length) : length;
  PreferenceBatch out;
  for (auto* ids : {&out.chosen, &out.rejected}) *ids = torch::full({n, length}, pad_token_id, torch::kLong);
  for (auto* mask : {&out.chosen_mask, &out.rejected_mask}) *mask = torch::zeros({n, length}, torch::kBool);
  for (int64_t row = 0; row < n; ++row) {
    const auto& item = *batch[static_cast<size_t>(row)];
    const auto prompt_end = mask_prompt_tokens ? static_cast<int64_t>(item.prompt.size()) + 2 : 0;
    for (const auto& [sequence, ids, mask] : {std::tuple{&item.chosen, &out.chosen, &out.chosen_mask},
                                              std::tuple{&item.rejected, &out.rejected, &out.rejected_mask}}) {
      const auto size = static_cast<int64_t>(sequence->size());
      std::copy(sequence->begin(), sequence->end(), ids->data_ptr<int64_t>() + row * length);
      // True from the end of the prompt (and its two "\n") to the end of the text.
      if (prompt_end < size) (*mask)[row].slice(0, prompt_end, size).fill_(true);
    }
  }
  for (auto* tensor : {&out.chosen, &out.rejected, &out.chosen_mask, &out.rejected_mask}) {
    *tensor = tensor->slice(1, 0, kept).contiguous();
  }
  return out;
}

PreferenceDataset::PreferenceDataset(const std::vector<PreferenceEntry>& entries, const BpeTokenizer& tokenizer,
                                     PreferenceCollate collate)
    : collate_(collate) {
  tokens_.reserve(entries.size());
  for (const auto& entry : entries) {
    tokens_.push_back({tokenizer.encode(format_input(entry.entry)), tokenizer.encode(chosen_text(entry)),
                       tokenizer.encode(rejected_text(entry))});
  }
}

std::pair<torch::Tensor, torch::Tensor> PreferenceDataset::get_batch(const torch::Tensor& indices) const {
  const auto idx = indices.contiguous();
  std::vector<const PreferenceTokens*> batch;
  for (int64_t k = 0; k < idx.size(0); ++k) batch.push_back(&tokens(idx[k].item<int64_t>()));
  const auto b = collate_(batch);
  return {torch::cat({b.chosen, b.rejected}), torch::cat({b.chosen_mask, b.rejected_mask})};
}

PreferenceBatch preference_batch(const Batch& batch) {
  const int64_t b = batch.inputs.size(0) / 2;
  return {batch.inputs.slice(0, 0, b), batch.inputs.slice(0, b), batch.targets.slice(0, 0, b),
          batch.targets.slice(0, b)};
}

}  // namespace llm
