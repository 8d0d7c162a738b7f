#include "helpers.h"
#include "llm/text/bpe_trainer.h"
#include "llm/util/error.h"

namespace {
llm::BpeVocabulary train(std::string_view text, int64_t vocab_size) {
  llm::BpeTrainerOptions options;
  options.vocab_size = vocab_size;
  return llm::train_bpe(text, options);
}
}  // namespace

TEST_CASE("training puts the 256 bytes first, then merges, then the special tokens") {
  const auto vocabulary = train("The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.", 280);
  REQUIRE(vocabulary.tokens.size() == 280);
  for (size_t i = 0; i < 256; ++i) {
    REQUIRE(vocabulary.tokens[i] == std::string(1, static_cast<char>(llm::gpt2_byte_order()[i])));
  }
  CHECK(vocabulary.tokens.back() == "<|endoftext|>");
  CHECK(vocabulary.merges.size() == 280 - 256 - 1);
  const llm::BpeTokenizer tokenizer(vocabulary);
  CHECK(tokenizer.special_token("<|endoftext|>") == 279);
  CHECK(tokenizer.encode("lowest<|endoftext|>", {"<|endoftext|>"}).back() == 279);
}

TEST_CASE("ties go to the pair of smaller ids, left first") {
  // Every pair occurs once. GPT-2's byte order gives 'a'..'d' ids 64..67 and the
  // space 220, so the merges come in the order (a,b), (c,d), (' ',cd).
  const auto vocabulary = train("ab cd", 256 + 3 + 1);
  REQUIRE(vocabulary.merges.size() == 3);
  const auto merged = [&](size_t i) {
    return vocabulary.tokens[vocabulary.merges[i].first] + vocabulary.tokens[vocabulary.merges[i].second];
  };
  CHECK(merged(0) == "ab");
  CHECK(merged(1) == "cd");
  CHECK(merged(2) == " cd");
  // The most frequent pair wins over smaller ids.
  CHECK(train("zz zz zz ab", 256 + 1 + 1).tokens[256] == "zz");
}

TEST_CASE("training stops when no pair is left") {
  const auto vocabulary = train("aaaa", 1000);
  CHECK(vocabulary.merges.size() == 2);  // aa, aaaa
  CHECK(vocabulary.tokens.size() == 256 + 2 + 1);
}

TEST_CASE("a trained vocabulary saves, loads back and round-trips text") {
  const std::string text = llm::read_text_file(llm::test::data_or_skip("the-verdict.txt"));
  const auto vocabulary = train(text, 600);
  CHECK(vocabulary.tokens.size() == 600);
  const auto again = train(text, 600);
  CHECK(again.tokens == vocabulary.tokens);  // deterministic
  CHECK(again.merges == vocabulary.merges);

  const auto dir = llm::test::temp_dir("bpe-trainer");
  llm::save_bpe_vocabulary(vocabulary, dir / "encoder.json", dir / "vocab.bpe");
  const auto loaded = llm::load_bpe_vocabulary(dir / "encoder.json", dir / "vocab.bpe");
  CHECK(loaded.tokens == vocabulary.tokens);
  CHECK(loaded.merges == vocabulary.merges);

  const llm::BpeTokenizer tokenizer(loaded);
  const auto ids = tokenizer.encode(text);
  CHECK(tokenizer.decode(ids) == text);
  CHECK(ids.size() < text.size() / 2);  // the merges compress the text they were learned from
  const std::string unseen = "Zebras \xE2\x80\x94 quagga! 42 \xF0\x9F\xA6\x93\n";
  CHECK(tokenizer.decode(tokenizer.encode(unseen)) == unseen);
}

TEST_CASE("a trained vocabulary's byte tokens have GPT-2's ids") {
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  const auto gpt2 = llm::BpeTokenizer::gpt2();
  const auto vocabulary = train("hello", 260);
  for (int64_t id = 0; id < 256; ++id) REQUIRE(vocabulary.tokens[id] == gpt2.token_bytes(id));
}

TEST_CASE("bad trainer options are rejected") {
  CHECK_THROWS_WITH(train("abc", 256), Catch::Contains("vocab_size 256 is too small"));
  llm::BpeTrainerOptions twice;
  twice.special_tokens = {"<|a|>", "<|a|>"};
  CHECK_THROWS_WITH(llm::train_bpe("abc", twice), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(train("ab\xFF", 300), Catch::Contains("invalid UTF-8 at byte 2"));
}
