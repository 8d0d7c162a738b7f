// GPT-2's BPE on any bytes: invalid UTF-8 is refused with an llm::Error, and valid
// text decodes back to itself exactly, with or without <|endoftext|> allowed.
#include <filesystem>
#include <iostream>

#include "fuzz.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace {

const llm::BpeTokenizer& gpt2() {
  static const auto tokenizer = [] {
    if (!std::filesystem::exists(llm::data_file("gpt2/vocab.bpe"))) {
      std::cout << "skipped: GPT-2's vocabulary is missing; run scripts/fetch-data.sh" << std::endl;
      std::exit(77);  // ctest's SKIP_RETURN_CODE: before any input is tried
    }
    return llm::BpeTokenizer::gpt2();
  }();
  return tokenizer;
}

size_t occurrences(std::string_view text, std::string_view part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using llm::fuzz::require;
  const auto& tokenizer = gpt2();
  const std::string text = llm::fuzz::bytes(data, size);
  const int64_t end_of_text = *tokenizer.special_token("<|endoftext|>");

  std::vector<int64_t> ids;
  try {
    ids = tokenizer.encode(text);
  } catch (const llm::Error&) {
    require(!llm::fuzz::valid_utf8(text), "encode refused valid UTF-8");
    return 0;
  }
  require(llm::fuzz::valid_utf8(text), "encode took invalid UTF-8");
  for (const auto id : ids) {
    require(id >= 0 && id < tokenizer.vocab_size(), "an id outside the vocabulary");
    require(id != end_of_text, "<|endoftext|> emitted without being allowed");
  }
  require(tokenizer.decode(ids) == text, "decode(encode(text)) != text");

  std::string pieces;
  for (const auto piece : llm::BpeTokenizer::pretokenize(text)) pieces += piece;
  require(pieces == text, "the pre-tokenizer's pieces do not make the text");

  const auto with_special = tokenizer.encode(text, {"<|endoftext|>"});
  require(tokenizer.decode(with_special) == text, "decode(encode(text, allowed)) != text");
  require(static_cast<size_t>(std::count(with_special.begin(), with_special.end(), end_of_text)) ==
              occurrences(text, "<|endoftext|>"),
          "one <|endoftext|> id per occurrence when allowed");
  return 0;
}
