#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/text/dataset.h"
#include "llm/text/instruction_data.h"

namespace llm {

/// One entry of the DPO notebook's instruction-data-with-preference.json: an
/// instruction entry with a preferred ("chosen") and a dispreferred ("rejected")
/// response.
struct PreferenceEntry {
  InstructionEntry entry;
  std::string chosen, rejected;
};

/// The entries of a preference-data JSON file: instruction data (instruction_data.h)
/// whose every entry has string "chosen" and "rejected". Anything else is an
/// llm::Error naming the file and the entry.
std::vector<PreferenceEntry> read_preference_data(const std::filesystem::path& path);
std::vector<PreferenceEntry> parse_preference_data(std::string_view json, std::string_view source);

/// The notebook's split, in file order, as lesson 7.2's: 935 / 110 / 55 of 1,100.
struct PreferenceSplits {
  std::vector<PreferenceEntry> train, test, validation;
};
PreferenceSplits split_preference_data(const std::vector<PreferenceEntry>& entries);

/// What PreferenceDataset keeps of an entry: the ids of its Alpaca prompt, and of the
/// prompt with "\n\n### Response:\n" and the chosen, or the rejected, response.
struct PreferenceTokens {
  std::vector<int64_t> prompt, chosen, rejected;
};

/// The notebook's full texts: format_input(entry), "\n\n### Response:\n", the response.
std::string chosen_text(const PreferenceEntry& entry);
std::string rejected_text(const PreferenceEntry& entry);

/// A collated preference batch: the notebook's batch["chosen"], ["rejected"] (ids,
/// [b, T], padded to a common length) and their masks ([b, T], bool: true on the
/// response's tokens).
struct PreferenceBatch {
  torch::Tensor chosen, rejected, chosen_mask, rejected_mask;
};

/// The notebook's custom_collate_fn: every text padded with pad_token_id to the
/// longest chosen or rejected text plus one; each mask false on the padding and, with
/// mask_prompt_tokens, on the prompt and the two "\n" tokens after it; ids and masks
/// cut to allowed_max_length (0: no cut).
struct PreferenceCollate {
  int64_t pad_token_id = 50256;
  int64_t allowed_max_length = 1024;
  bool mask_prompt_tokens = true;

  PreferenceBatch operator()(const std::vector<const PreferenceTokens*>& batch) const;
};

/// The notebook's PreferenceDataset with customized_collate_fn as its batching. A
/// DataLoader's Batch holds the PreferenceBatch as inputs = [chosen; rejected]
/// ([2b, T]: the chosen rows, then the rejected ones) and targets = their masks
/// likewise; preference_batch() takes it apart.
class PreferenceDataset final : public Dataset {
 public:
  PreferenceDataset(const std::vector<PreferenceEntry>& entries, const BpeTokenizer& tokenizer,
                    PreferenceCollate collate);
  int64_t size() const override { return static_cast<int64_t>(tokens_.size()); }
  std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const override;
  const PreferenceTokens& tokens(int64_t index) const { return tokens_.at(static_cast<size_t>(index)); }
  const PreferenceCollate& collate() const { return collate_; }

 private:
  PreferenceCollate collate_;
  std::vector<PreferenceTokens> tokens_;
};

/// The PreferenceBatch a PreferenceDataset's Batch holds (views, no copy).
PreferenceBatch preference_batch(const Batch& batch);

}  // namespace llm
