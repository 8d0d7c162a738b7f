#include "llm/text/simple_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "llm/util/error.h"
#include "llm/util/regex.h"

namespace llm {
namespace {

// Python's str.isspace() set, which is what \s means in the lesson's Python regex.
constexpr std::string_view kPythonSpace =
    R"(\t\n\x{0B}\f\r\x{1C}-\x{1F} \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

constexpr std::string_view kPunctuation = R"(,.:;?_!"()'-)";

const Regex& split_regex() {
  static const Regex regex(fmt::format(R"([,.:;?_!"()']|--|[{}])", kPythonSpace));
  return regex;
}

}  // namespace

std::vector<std::string> split_simple(std::string_view text) {
  std::vector<std::string> tokens;
  // Every whitespace character is a match of its own, so the text between matches
  // has none, and a match is kept unless it is whitespace.
  size_t last = 0;
  split_regex().for_each_match(text, [&](size_t begin, size_t end) {
    if (begin > last) tokens.emplace_back(text.substr(last, begin - last));
    if (kPunctuation.find(text[begin]) != std::string_view::npos) tokens.emplace_back(text.substr(begin, end - begin));
    last = end;
  });
  if (last < text.size()) tokens.emplace_back(text.substr(last));
  return tokens;
}

SimpleTokenizer SimpleTokenizer::from_text(std::string_view text, Version version) {
  const auto tokens = split_simple(text);
  if (tokens.empty()) throw Error("simple tokenizer: the text has no tokens; expected some words");
  const std::set<std::string> unique(tokens.begin(), tokens.end());
  std::vector<std::string> vocab(unique.begin(), unique.end());
  if (version == Version::V2) {
    vocab.emplace_back(kEndOfText);
    vocab.emplace_back(kUnknown);
  }
  return SimpleTokenizer(std::move(vocab), version);
}

SimpleTokenizer::SimpleTokenizer(std::vector<std::string> vocab, Version version)
    : version_(version), id_to_token_(std::move(vocab)) {
  for (size_t i = 0; i < id_to_token_.size(); ++i) {
    if (!token_to_id_.emplace(id_to_token_[i], static_cast<int64_t>(i)).second) {
      throw Error(fmt::format("simple tokenizer: token '{}' appears twice in the vocabulary", id_to_token_[i]));
    }
  }
  if (version_ == Version::V2 && token_to_id_.count(std::string(kUnknown)) == 0) {
    throw Error("simple tokenizer V2: the vocabulary has no <|unk|> token");
  }
}

std::vector<int64_t> SimpleTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const auto& token : split_simple(text)) {
    auto it = token_to_id_.find(token);
    if (it != token_to_id_.end()) {
      ids.push_back(it->second);
    } else if (version_ == Version::V2) {
      ids.push_back(token_to_id_.at(std::string(kUnknown)));
    } else {
      throw Error(fmt::format("simple tokenizer V1: '{}' is not in the vocabulary (V2 maps it to <|unk|>)", token));
    }
  }
  return ids;
}

std::string SimpleTokenizer::decode(const std::vector<int64_t>& ids) const {
  const std::string_view attach = version_ == Version::V1 ? R"(,.?!"()')" : R"(,.:;?!"()')";
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= id_to_token_.size()) {
      throw Error(fmt::format("simple tokenizer: id {} is outside the vocabulary (0..{})", ids[i],
                              id_to_token_.size() - 1));
    }
    const std::string& token = id_to_token_[static_cast<size_t>(ids[i])];
    const bool glue = token.size() == 1 && attach.find(token[0]) != std::string_view::npos;
    if (i > 0 && !glue) text += ' ';
    text += token;
  }
  return text;
}

}  // namespace llm
