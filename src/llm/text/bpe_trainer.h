#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"

namespace llm {

struct BpeTrainerOptions {
  /// The vocabulary size to reach: 256 byte tokens + merges + special tokens.
  int64_t vocab_size = 1000;
  /// Kept as tokens of their own, after the merges (GPT-2 keeps <|endoftext|> last).
  std::vector<std::string> special_tokens = {"<|endoftext|>"};
};

/// Learns byte-level BPE merges from `text`, as GPT-2's vocabulary was made.
///
/// The text is split by GPT-2's pre-tokenizer, so no merge crosses a word boundary,
/// and occurrences of the special tokens are left out. The 256 byte tokens come
/// first, in GPT-2's byte order (so they have GPT-2's ids), then one token per merge,
/// then the special tokens.
///
/// Each step merges the adjacent pair that occurs most often. Ties go to the pair
/// with the smaller left id, then the smaller right id: the pair of earlier-learned
/// tokens wins, which makes training deterministic. Training stops early when no
/// pair is left; the vocabulary is then smaller than asked.
BpeVocabulary train_bpe(std::string_view text, const BpeTrainerOptions& options);

}  // namespace llm
