// The vocabulary loader on any encoder.json and vocab.bpe (the input, split at its
// first NUL byte): it builds a vocabulary or refuses with an llm::Error, and a
// tokenizer made from what it accepts round-trips text.
#include "fuzz.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using llm::fuzz::require;
  const std::string input = llm::fuzz::bytes(data, size);
  const size_t split = std::min(input.find('\0'), input.size());
  const std::string_view encoder_json = std::string_view(input).substr(0, split);
  const std::string_view merges = std::string_view(input).substr(std::min(split + 1, input.size()));

  llm::BpeVocabulary vocabulary;
  try {
    vocabulary = llm::parse_bpe_vocabulary(encoder_json, merges);
  } catch (const llm::Error&) {
    return 0;
  }
  require(vocabulary.tokens.size() >= 256, "a vocabulary without all 256 bytes");
  for (const auto& [left, right] : vocabulary.merges) {
    require(left >= 0 && right >= 0 && left < static_cast<int64_t>(vocabulary.tokens.size()) &&
                right < static_cast<int64_t>(vocabulary.tokens.size()),
            "a merge of a token outside the vocabulary");
  }
  const auto n_tokens = vocabulary.tokens.size();
  const llm::BpeTokenizer tokenizer(std::move(vocabulary));
  for (const std::string& text : {std::string("Hello, world! It's 2024.\n  <|endoftext|> x"), std::string(merges)}) {
    if (!llm::fuzz::valid_utf8(text)) continue;
    const auto ids = tokenizer.encode(text);
    for (const auto id : ids) require(id >= 0 && id < static_cast<int64_t>(n_tokens), "an id outside the vocabulary");
    require(tokenizer.decode(ids) == text, "decode(encode(text)) != text");
  }
  return 0;
}
