// The tokenizer.json reader on any file (the input up to its first NUL byte), then
// the tokenizer it makes on a text (the rest): it builds a tokenizer or refuses with an
// llm::Error; encoding gives ids of the vocabulary, and decoding them gives bytes.
#include <optional>

#include "fuzz.h"
#include "llm/text/tokenizer_json.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using llm::fuzz::require;
  const std::string input = llm::fuzz::bytes(data, size);
  const size_t split = std::min(input.find('\0'), input.size());
  const std::string_view json = std::string_view(input).substr(0, split);
  const std::string text(std::string_view(input).substr(std::min(split + 1, input.size())));

  std::optional<llm::BpeTokenizer> tokenizer;
  try {
    tokenizer.emplace(llm::parse_tokenizer_json(json, "fuzz"));
  } catch (const llm::Error&) {
    return 0;
  }
  if (!llm::fuzz::valid_utf8(text)) return 0;
  std::vector<int64_t> ids;
  try {
    ids = tokenizer->encode(text);
  } catch (const llm::Error&) {
    return 0;  // a character with no token, no byte fallback and no unknown token; or a regex's match limit
  }
  for (const auto id : ids) require(id >= 0 && id < tokenizer->vocab_size(), "an id outside the vocabulary");
  tokenizer->decode(ids);
  return 0;
}
