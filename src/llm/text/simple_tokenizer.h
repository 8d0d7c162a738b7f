#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llm {

/// Splits text as the lesson's `re.split(r'([,.:;?_!"()\']|--|\s)', text)` followed by
/// dropping the pieces that are empty after strip(): words and punctuation are kept,
/// whitespace is dropped. \s means Python's Unicode whitespace.
std::vector<std::string> split_simple(std::string_view text);

/// The lesson's word-level tokenizers. V1 knows only the words of its vocabulary and
/// fails on any other; V2 adds <|endoftext|> and <|unk|>, and maps unknown words to
/// <|unk|>.
class SimpleTokenizer {
 public:
  enum class Version { V1, V2 };

  static constexpr std::string_view kEndOfText = "<|endoftext|>";
  static constexpr std::string_view kUnknown = "<|unk|>";

  /// The vocabulary of `text`: its sorted unique tokens, then for V2 <|endoftext|> and
  /// <|unk|>, in that order (as the lesson builds it).
  static SimpleTokenizer from_text(std::string_view text, Version version);

  SimpleTokenizer(std::vector<std::string> vocab, Version version);

  std::vector<int64_t> encode(std::string_view text) const;

  /// Joins the tokens with spaces, then removes the space before punctuation, as the
  /// lesson does (V1: , . ? ! " ( ) '   V2 adds : and ;).
  std::string decode(const std::vector<int64_t>& ids) const;

  size_t vocab_size() const { return id_to_token_.size(); }
  const std::vector<std::string>& vocab() const { return id_to_token_; }
  Version version() const { return version_; }

 private:
  Version version_;
  std::vector<std::string> id_to_token_;
  std::unordered_map<std::string, int64_t> token_to_id_;
};

}  // namespace llm
