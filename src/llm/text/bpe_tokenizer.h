#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llm {

/// A byte-level BPE vocabulary as GPT-2's encoder.json and vocab.bpe describe it.
struct BpeVocabulary {
  /// Each token's bytes, indexed by id. Ids are dense: 0 .. size-1.
  std::vector<std::string> tokens;
  /// The merges in rank order, as pairs of token ids (vocab.bpe's lines).
  std::vector<std::pair<int64_t, int64_t>> merges;
};

/// Parses encoder.json and vocab.bpe contents; the names are used in error messages.
BpeVocabulary parse_bpe_vocabulary(std::string_view encoder_json, std::string_view merges,
                                   std::string_view encoder_name = "encoder.json",
                                   std::string_view merges_name = "vocab.bpe");

BpeVocabulary load_bpe_vocabulary(const std::filesystem::path& encoder_json, const std::filesystem::path& merges);

/// Writes encoder.json and vocab.bpe in GPT-2's format, each atomically.
void save_bpe_vocabulary(const BpeVocabulary& vocabulary, const std::filesystem::path& encoder_json,
                         const std::filesystem::path& merges);

/// GPT-2's byte <-> unicode table: each byte is shown as a printable character, so
/// that a token's bytes can be a JSON key. Bytes in this order have ids 0..255 in
/// GPT-2's vocabulary.
const std::array<char32_t, 256>& byte_to_unicode();
const std::array<uint8_t, 256>& gpt2_byte_order();

/// Walks `text` split at the occurrences of `specials`: on_text(part) for each
/// stretch between them (possibly empty), on_special(name) for each occurrence.
/// Where several start at the same place, the longest wins.
void split_on_specials(std::string_view text, const std::set<std::string>& specials,
                       const std::function<void(std::string_view)>& on_text,
                       const std::function<void(const std::string&)>& on_special);

/// GPT-2's byte-level BPE tokenizer, with the same ids as tiktoken's "gpt2" encoding:
/// text is split by GPT-2's pre-tokenizer pattern, and each piece that is not a token
/// itself is merged pair by pair, always the adjacent pair whose joined bytes form the
/// lowest-ranked token (the leftmost on a tie).
///
/// Tokens of encoder.json that are neither a byte nor made by a merge (GPT-2's
/// <|endoftext|>) are special: encode() recognises them only when allowed, and
/// encodes them as ordinary text otherwise.
class BpeTokenizer {
 public:
  explicit BpeTokenizer(BpeVocabulary vocabulary);

  static BpeTokenizer from_files(const std::filesystem::path& encoder_json, const std::filesystem::path& merges);

  /// GPT-2's vocabulary from the fetched data (data/gpt2/).
  static BpeTokenizer gpt2();

  /// Encodes `text` (UTF-8). Special tokens named in `allowed_special` are emitted as
  /// their ids; any other text, including other special tokens, is ordinary text.
  std::vector<int64_t> encode(std::string_view text, const std::set<std::string>& allowed_special = {}) const;

  /// The concatenated bytes of the tokens. Decoding the ids of a UTF-8 text gives
  /// that text back exactly; a slice of ids may end inside a multi-byte character.
  std::string decode(const std::vector<int64_t>& ids) const;

  const std::string& token_bytes(int64_t id) const;
  std::optional<int64_t> special_token(std::string_view name) const;
  int64_t vocab_size() const { return static_cast<int64_t>(vocabulary_.tokens.size()); }
  const BpeVocabulary& vocabulary() const { return vocabulary_; }

  /// GPT-2's pre-tokenizer: contractions, letters, numbers, other symbols, and runs
  /// of whitespace with the `\s+(?!\S)` look-ahead.
  static std::vector<std::string_view> pretokenize(std::string_view text);

 private:
  struct Merge {
    int32_t rank;
    int32_t id;
  };

  void encode_ordinary(std::string_view text, std::vector<int64_t>& out,
                       std::unordered_map<std::string_view, std::vector<int32_t>>& cache) const;
  void merge_piece(std::string_view piece, std::vector<int32_t>& out) const;
  void merge_long_piece(std::string_view piece, std::vector<int32_t>& out) const;
  std::optional<Merge> find_merge(int32_t left, int32_t right) const;

  BpeVocabulary vocabulary_;
  std::array<int32_t, 256> byte_ids_{};
  std::unordered_map<std::string, int32_t> ordinary_ids_;
  std::unordered_map<std::string, int32_t> special_ids_;
  std::unordered_map<uint64_t, Merge> pair_merges_;
};

}  // namespace llm
