#include "helpers.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/simple_tokenizer.h"
#include "llm/util/error.h"

using llm::SimpleTokenizer;

namespace {
std::vector<int64_t> to_vector(const torch::Tensor& t) {
  const auto c = t.to(torch::kLong).contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}
}  // namespace

TEST_CASE("split_simple keeps words and punctuation and drops whitespace") {
  CHECK(llm::split_simple("Hello, world. Is this-- a test?") ==
        std::vector<std::string>{"Hello", ",", "world", ".", "Is", "this", "--", "a", "test", "?"});
  CHECK(llm::split_simple("  a\tb\n\u3000c  ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(llm::split_simple("x_y:z;(q)'r'\"s\"!") ==
        std::vector<std::string>{"x", "_", "y", ":", "z", ";", "(", "q", ")", "'", "r", "'", "\"", "s", "\"", "!"});
  CHECK(llm::split_simple("a-b---c") == std::vector<std::string>{"a-b", "--", "-c"});
  CHECK(llm::split_simple(" \n\t ").empty());
}

TEST_CASE("V1 and V2 encode and decode as the lesson's Python tokenizers") {
  const std::string text = llm::read_text_file(llm::test::data_or_skip("the-verdict.txt"));
  const auto golden = llm::load_tensors(llm::test::golden("ch02-simple-tokenizer.pt"));
  const auto expect = [&](const std::string& name) { return to_vector(llm::find_tensor(golden, name, "golden")); };

  const auto v1 = SimpleTokenizer::from_text(text, SimpleTokenizer::Version::V1);
  const auto v2 = SimpleTokenizer::from_text(text, SimpleTokenizer::Version::V2);
  CHECK(llm::split_simple(text).size() == 4690);
  CHECK(v1.vocab_size() == 1130);
  CHECK(v2.vocab_size() == 1132);
  CHECK(expect("num_tokens") == std::vector<int64_t>{4690});
  CHECK(v2.vocab()[1130] == "<|endoftext|>");
  CHECK(v2.vocab()[1131] == "<|unk|>");

  const std::string text_v1 = R"("It's the last he painted, you know," Mrs. Gisburn said with pardonable pride.)";
  const auto ids_v1 = v1.encode(text_v1);
  CHECK(ids_v1 == expect("ids_v1"));
  CHECK(v1.decode(ids_v1) == R"(" It' s the last he painted, you know," Mrs. Gisburn said with pardonable pride.)");

  const std::string text_v2 = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace.";
  const auto ids_v2 = v2.encode(text_v2);
  CHECK(ids_v2 == expect("ids_v2"));
  CHECK(v2.decode(ids_v2) == "<|unk|>, do you like tea? <|endoftext|> In the sunlit terraces of the <|unk|>.");
  CHECK(v2.encode(text) == expect("all_ids_v2"));
}

TEST_CASE("V1 rejects unknown words, V2 maps them to <|unk|>") {
  const auto v1 = SimpleTokenizer::from_text("the cat sat.", SimpleTokenizer::Version::V1);
  CHECK_THROWS_WITH(v1.encode("the dog"), Catch::Contains("'dog' is not in the vocabulary"));
  const auto v2 = SimpleTokenizer::from_text("the cat sat.", SimpleTokenizer::Version::V2);
  CHECK(v2.decode(v2.encode("the dog sat")) == "the <|unk|> sat");
  CHECK_THROWS_AS(v2.decode({99}), llm::Error);
  CHECK_THROWS_AS(SimpleTokenizer::from_text(" \n ", SimpleTokenizer::Version::V1), llm::Error);
}
