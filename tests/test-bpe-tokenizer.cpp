#include <nlohmann/json.hpp>

#include "helpers.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/error.h"

namespace {

// GPT-2's tokenizer; the test case is skipped when its files were not fetched.
const llm::BpeTokenizer* gpt2_or_skip() {
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  static const auto tokenizer = llm::BpeTokenizer::gpt2();
  return &tokenizer;
}

nlohmann::json golden() {
  return nlohmann::json::parse(llm::read_file(llm::test::golden("bpe-tiktoken.json")));
}

// The golden's hash of a token sequence: FNV-1a 64 over each id as 4 little-endian bytes.
std::string fnv1a64(const std::vector<int64_t>& ids) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const int64_t id : ids) {
    for (int k = 0; k < 4; ++k) {
      h ^= (static_cast<uint64_t>(id) >> (8 * k)) & 0xFF;
      h *= 0x100000001b3ULL;
    }
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

TEST_CASE("GPT-2 BPE gives tiktoken's ids on hard and random strings") {
  const auto* tokenizer = gpt2_or_skip();
  const auto cases = golden()["strings"];
  REQUIRE(cases.size() >= 150);
  for (const auto& c : cases) {
    const auto text = c["text"].get<std::string>();
    std::set<std::string> allowed;
    if (c.contains("allowed_special")) allowed = c["allowed_special"].get<std::set<std::string>>();
    INFO("text: " << nlohmann::json(text).dump());
    const auto ids = tokenizer->encode(text, allowed);
    CHECK(ids == c["ids"].get<std::vector<int64_t>>());
    CHECK(tokenizer->decode(ids) == text);
  }
}

// Pieces of thousands of bytes with no whitespace merge in O(n log n); the ids are
// still tiktoken's, the leftmost pair first among equal ranks.
TEST_CASE("GPT-2 BPE gives tiktoken's ids on long pieces with no whitespace") {
  const auto* tokenizer = gpt2_or_skip();
  const auto cases = golden()["long"];
  REQUIRE(cases.size() == 5);
  for (size_t k = 0; k < cases.size(); ++k) {
    const auto& c = cases[k];
    const auto text = c["text"].get<std::string>();
    INFO("long case " << k << ", " << text.size() << " bytes");
    const auto ids = tokenizer->encode(text);
    CHECK(static_cast<int64_t>(ids.size()) == c["count"].get<int64_t>());
    CHECK(fnv1a64(ids) == c["fnv1a64"].get<std::string>());
    CHECK(tokenizer->decode(ids) == text);
  }
}

// A whole book against tiktoken's ids (tests/golden/bpe-tiktoken.json); one test case
// per book, so that a missing book skips only its own.
void check_book(const std::string& name) {
  const auto* tokenizer = gpt2_or_skip();
  const std::string text = llm::read_text_file(llm::test::data_or_skip(name));
  const auto expected = golden()["files"][name];
  const auto ids = tokenizer->encode(text);
  CHECK(static_cast<int64_t>(ids.size()) == expected["count"].get<int64_t>());
  CHECK(std::vector<int64_t>(ids.begin(), ids.begin() + 20) == expected["first"].get<std::vector<int64_t>>());
  CHECK(fnv1a64(ids) == expected["fnv1a64"].get<std::string>());
  CHECK(tokenizer->decode(ids) == text);
}

TEST_CASE("GPT-2 BPE gives tiktoken's ids on the-verdict") {
  check_book("the-verdict.txt");
  CHECK(golden()["files"]["the-verdict.txt"]["count"].get<int64_t>() == 5145);  // the lesson's count
}

TEST_CASE("GPT-2 BPE gives tiktoken's ids on Moby Dick") { check_book("moby-dick.txt"); }

TEST_CASE("<|endoftext|> is a token only when allowed") {
  const auto* tokenizer = gpt2_or_skip();
  const std::string text = "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace.";
  CHECK(tokenizer->encode(text, {"<|endoftext|>"}) ==
        std::vector<int64_t>{15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 1659,
                             617, 34680, 27271, 13});
  const auto ordinary = tokenizer->encode("<|endoftext|>");
  CHECK(ordinary.size() > 1);
  CHECK(std::find(ordinary.begin(), ordinary.end(), 50256) == ordinary.end());
  CHECK(tokenizer->special_token("<|endoftext|>") == 50256);
  CHECK_THROWS_WITH(tokenizer->encode("x", {"<|pad|>"}), Catch::Contains("'<|pad|>' is not a special token"));
}

TEST_CASE("decode round-trips text whose characters are split across tokens") {
  const auto* tokenizer = gpt2_or_skip();
  const std::string text = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9D\x94\x98";
  const auto ids = tokenizer->encode(text);
  bool split = false;
  std::string joined;
  for (const auto id : ids) {
    const auto& bytes = tokenizer->token_bytes(id);
    split = split || llm::test::is_partial_utf8(bytes);
    joined += tokenizer->decode({id});
  }
  CHECK(split);  // the case is only meaningful when some token holds part of a character
  CHECK(joined == text);
  CHECK_THROWS_WITH(tokenizer->decode({50257}), Catch::Contains("token id 50257 is outside the vocabulary"));
  CHECK_THROWS_WITH(tokenizer->encode("ab\xC3"), Catch::Contains("invalid UTF-8 at byte 2"));
}

TEST_CASE("GPT-2's pre-tokenizer splits as the pattern says") {
  using V = std::vector<std::string_view>;
  CHECK(llm::BpeTokenizer::pretokenize("I'm here  now\n\n x's 123abc!!") ==
        V{"I", "'m", " here", " ", " now", "\n\n", " x", "'s", " 123", "abc", "!!"});
  CHECK(llm::BpeTokenizer::pretokenize("a\u00a0\u00a0b") == V{"a", "\u00a0", "\u00a0", "b"});
  // U+180E is not whitespace for tiktoken (Unicode's White_Space), though PCRE2's \s takes it.
  CHECK(llm::BpeTokenizer::pretokenize("\u180e\u180ex") == V{"\u180e\u180e", "x"});
}

TEST_CASE("malformed vocabulary files are rejected with the file and the place") {
  std::string bytes_json = "{";
  for (int i = 0; i < 256; ++i) {
    std::string printable;
    const char32_t c = llm::byte_to_unicode()[llm::gpt2_byte_order()[i]];
    printable = nlohmann::json(c < 0x80 ? std::string(1, static_cast<char>(c))
                                        : std::string{static_cast<char>(0xC0 | (c >> 6)),
                                                      static_cast<char>(0x80 | (c & 0x3F))})
                    .dump();
    bytes_json += fmt::format("{}{}: {}", i ? ", " : "", printable, i);
  }
  const std::string ok_json = bytes_json + ", \"ab\": 256}";
  CHECK(llm::parse_bpe_vocabulary(ok_json, "#version: 0.2\na b\n").merges.size() == 1);

  const auto rejects = [](const std::string& json, const std::string& merges, const std::string& message) {
    CHECK_THROWS_WITH(llm::parse_bpe_vocabulary(json, merges, "enc.json", "merges.bpe"), Catch::Contains(message));
  };
  rejects("{not json", "", "vocabulary 'enc.json': not valid JSON");
  rejects("[1, 2]", "", "expected a non-empty JSON object");
  rejects(bytes_json + ", \"ab\": \"x\"}", "", "token \"ab\": id must be an integer");
  rejects(bytes_json + ", \"ab\": 300}", "", "token \"ab\": id 300 is outside 0..256");
  rejects(bytes_json + ", \"ab\": 5}", "", "is used twice");
  rejects("{\"a\": 0}", "", "the single-byte token for byte 0 is missing");
  rejects(bytes_json + ", \"a\\u0000\": 256}", "", "outside GPT-2's byte alphabet");
  rejects(ok_json, "#version: 0.2\na b c\n", "vocabulary 'merges.bpe': line 2: expected two tokens");
  rejects(ok_json, "#version: 0.2\nab\n", "line 2: expected two tokens");
  rejects(ok_json, "a b\nab zz\n", "line 2: \"zz\" is not a token of 'enc.json'");
  rejects(ok_json, "b a\n", "line 1: \"ba\" is not a token of 'enc.json'");
}
