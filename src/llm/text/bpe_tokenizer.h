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

#include "llm/text/text_rules.h"

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

/// The bytes a token of a byte-level vocabulary stands for (its characters read through
/// byte_to_unicode() backwards); nullopt when a character is not in the table.
std::optional<std::string> bytes_from_printable(std::string_view printable);

/// Walks `text` split at the occurrences of `specials`: on_text(part) for each
/// stretch between them (possibly empty), on_special(name) for each occurrence.
/// Where several start at the same place, the longest wins.
void split_on_specials(std::string_view text, const std::set<std::string>& specials,
                       const std::function<void(std::string_view)>& on_text,
                       const std::function<void(const std::string&)>& on_special);

/// GPT-2's pre-tokenizer: contractions, letters, numbers, other symbols, and runs of
/// whitespace with the `\s+(?!\S)` look-ahead, each match a piece.
PieceSplit gpt2_pre_tokenizer();

/// How a BPE tokenizer reads text, as Hugging Face's tokenizer.json spells it out:
/// added tokens are cut out first, each stretch between them is normalized, then cut
/// into pieces by the pre-tokenizer, and each piece is merged. The defaults are GPT-2's.
struct BpeRules {
  /// Which adjacent pair merges first. tiktoken's rule (GPT-2): any two tokens whose
  /// bytes join into a token made by a merge, at that token's rank. Hugging Face's
  /// rule: only the pairs the merge list names, at their place in it.
  enum class Merging { kTokenRank, kListedPairs };
  /// The symbols a piece starts as: its bytes (byte-level BPE), or its UTF-8
  /// characters as `spellings` name them (SentencePiece-style BPE), a character that is
  /// no token falling back to the <0xXX> tokens of its bytes.
  enum class Alphabet { kBytes, kCharacters };

  Merging merging = Merging::kTokenRank;
  Alphabet alphabet = Alphabet::kBytes;
  /// kCharacters: each token as the model spells it ("▁the" for the bytes " the").
  std::vector<std::string> spellings;
  /// kCharacters: a character with no token becomes the <0xXX> tokens of its bytes.
  bool byte_fallback = false;
  /// The token of a character that has neither a token nor byte fallback; consecutive
  /// ones fuse into one.
  std::optional<int64_t> unknown;
  /// A piece that is a token itself is that token, whatever the merges would make
  /// (tiktoken; tokenizer.json's ignore_merges).
  bool whole_piece_tokens = true;
  std::vector<Normalization> normalizer;
  /// Each split cuts the pieces of the one before; none: a stretch is one piece.
  std::vector<PieceSplit> pre_tokenizer{gpt2_pre_tokenizer()};
  /// Tokens recognised anywhere in the text by their content, before normalizing
  /// (Hugging Face's added tokens). Other special tokens are recognised only where
  /// encode() allows them.
  struct AddedToken {
    int64_t id;
    std::string content;
  };
  std::vector<AddedToken> added;
};

/// A byte-level or SentencePiece-style BPE tokenizer. With GPT-2's vocabulary and the
/// default rules it gives the ids of tiktoken's "gpt2" encoding: text is split by
/// GPT-2's pre-tokenizer pattern, and each piece that is not a token itself is merged
/// pair by pair, always the adjacent pair whose joined bytes form the lowest-ranked
/// token (the leftmost on a tie). tokenizer_json.h builds the rules of Llama 3's,
/// Qwen3's and Gemma 3's tokenizer.json.
///
/// Special tokens: the added tokens of the rules, and, with tiktoken's merging, the
/// tokens of the vocabulary that are neither a byte nor made by a merge (GPT-2's
/// <|endoftext|>). encode() recognises an added token anywhere, and another special
/// token only when allowed, encoding it as ordinary text otherwise.
class BpeTokenizer {
 public:
  explicit BpeTokenizer(BpeVocabulary vocabulary, BpeRules rules = {});

  static BpeTokenizer from_files(const std::filesystem::path& encoder_json, const std::filesystem::path& merges);

  /// GPT-2's vocabulary from the fetched data (data/gpt2/).
  static BpeTokenizer gpt2();

  /// Encodes `text` (UTF-8). Added tokens, and the special tokens named in
  /// `allowed_special`, are emitted as their ids; any other text, including other
  /// special tokens, is ordinary text.
  std::vector<int64_t> encode(std::string_view text, const std::set<std::string>& allowed_special = {}) const;

  /// The concatenated bytes of the tokens. Decoding the ids of a UTF-8 text gives
  /// that text back as the normalizer leaves it (exactly, when there is none); a slice
  /// of ids may end inside a multi-byte character.
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

  using PieceCache = std::unordered_map<std::string_view, std::vector<int32_t>>;

  /// The merges by their pair of token ids, in one flat array with linear probing:
  /// looking a pair up is the inner loop of encoding, and a node-based map costs a
  /// cache miss or two per lookup.
  class MergeTable {
   public:
    /// Adds the merge of (left, right) unless the pair has one already.
    void insert(int32_t left, int32_t right, Merge merge);
    std::optional<Merge> find(int32_t left, int32_t right) const;
    void reserve(size_t count);

   private:
    static constexpr uint64_t kEmpty = ~uint64_t{0};  // no pair of token ids has this key
    struct Slot {
      uint64_t key = kEmpty;
      Merge merge{};
    };
    size_t slot_of(uint64_t key) const;

    std::vector<Slot> slots_;
    size_t size_ = 0;
    int shift_ = 64;
  };

  void index_merges(const std::unordered_map<std::string, int32_t>& ids);
  void index_specials(const std::vector<bool>& reachable);
  void index_word_cuts();
  void encode_ordinary(std::string_view text, std::vector<int64_t>& out, PieceCache& cache) const;
  void encode_piece(std::string_view piece, std::vector<int64_t>& out, PieceCache& cache) const;
  template <typename OnPiece>
  void for_each_piece(std::string_view text, OnPiece&& on_piece) const;
  template <typename OnPiece>
  void cut_at_words(std::string_view piece, OnPiece&& on_piece) const;
  void start_symbols(std::string_view piece, std::vector<int32_t>& parts) const;
  void merge_parts(std::vector<int32_t>& parts) const;
  void merge_long(std::vector<int32_t>& parts) const;
  std::optional<Merge> find_merge(int32_t left, int32_t right) const;
  /// The longest special token at text[at] that `allowed` lets through: its length and id.
  std::pair<size_t, int32_t> special_at(std::string_view text, size_t at, const std::set<int32_t>& allowed) const;

  BpeVocabulary vocabulary_;
  BpeRules rules_;
  std::array<int32_t, 256> byte_ids_{};       // kBytes: each byte's token; kCharacters: its <0xXX> token or -1
  std::unordered_map<std::string, int32_t> ordinary_ids_;  // by bytes (kBytes) or spelling (kCharacters)
  std::unordered_map<std::string, int32_t> special_ids_;
  std::vector<bool> always_special_;  // by id: an added token
  MergeTable pair_merges_;
  // The special tokens as a trie over their bytes, for leftmost-longest matching.
  std::unordered_map<uint64_t, int32_t> trie_edges_;  // (node << 8 | byte) -> node
  std::vector<int32_t> trie_tokens_{-1};              // by node: the token that ends there, or -1
  std::array<bool, 256> special_starts_{};            // bytes a special token starts with
  // SentencePiece's pre-tokenizer leaves a whole line one piece (Gemma 3's splits at
  // spaces, which the normalizer has made "▁"). A piece may be cut before each word's
  // "▁" when no token spans such a cut, which spares merging each line from its
  // characters: the cut is taken unless the piece holds one of the tokens that span
  // one (Gemma 3 has one, ">▁</"); see index_word_cuts.
  bool word_cuts_ = false;
  std::vector<std::string> cut_spanning_tokens_;
};

}  // namespace llm
