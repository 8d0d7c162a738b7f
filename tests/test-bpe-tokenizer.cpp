#include <nlohmann/json.hpp>

#include <algorithm>

#include "helpers.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/prepare.h"
#include "llm/text/token_corpus.h"
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

std::string fnv1a64(const std::vector<int64_t>& ids) { return llm::test::fnv1a64_of_ids(ids); }

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

namespace {

std::vector<int64_t> joined(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

// Cutting at a safe cut never changes the ids: on every safe cut of the-verdict's
// start, of tiktoken's hard strings, and of strings made to sit on the rules' edges.
TEST_CASE("a text cut at a safe cut encodes to the ids of the whole") {
  const auto* tokenizer = gpt2_or_skip();
  std::vector<std::string> texts{llm::read_text_file(llm::test::data_or_skip("the-verdict.txt")).substr(0, 3000)};
  const auto strings = golden()["strings"];  // a range-for over golden()["strings"] would outlive golden()'s value
  for (const auto& c : strings) texts.push_back(c["text"].get<std::string>());
  for (const char* edge : {"a\nb", "a \nb", "a\n\nb", "x\n's y", ".\n.", "a b", "a  b", "1 a", "'s b", "a\n<|endoftext|>b",
                           "<|endoftext|> Hello\nworld", "tab\tx y", "x\n y", "x\n\ty", "é\nb a\né", "a\r\nb c",
                           "don't stop\nbelieving 's now", "1,000 people\n2,000 more"}) {
    texts.emplace_back(edge);
  }
  int64_t cuts = 0;
  for (const auto& text : texts) {
    INFO("text: " << nlohmann::json(text).dump());
    const std::set<std::string> allowed{"<|endoftext|>"};
    const auto whole = tokenizer->encode(text, allowed);
    for (size_t p = 0; p <= text.size(); ++p) {
      if (!llm::is_safe_cut(text, p)) continue;
      INFO("cut at byte " << p);
      ++cuts;
      CHECK(joined(tokenizer->encode(text.substr(0, p), allowed), tokenizer->encode(text.substr(p), allowed)) == whole);
    }
  }
  CHECK(cuts > 100);
  CHECK(llm::is_safe_cut("a\nb", 2));
  CHECK(llm::is_safe_cut("a b", 1));
  CHECK_FALSE(llm::is_safe_cut("a \nb", 3));  // a space before the newline joins it: " \n" could be one piece
  CHECK_FALSE(llm::is_safe_cut("a\n b", 2));  // " b" starts with the space
  CHECK_FALSE(llm::is_safe_cut("a 1", 1));    // only a letter takes the space into its piece
  CHECK(llm::last_safe_cut("ab cd\nef gh", 7) == 6);
  CHECK(llm::last_safe_cut("ab cd\nef gh", 8) == 8);
  CHECK(llm::first_safe_cut("ab cd\nef gh", 7) == 8);
}

TEST_CASE("encoding in parallel gives the one-thread ids of Moby Dick") {
  const auto* tokenizer = gpt2_or_skip();
  const std::string text = llm::read_text_file(llm::test::data_or_skip("moby-dick.txt"));
  const auto expected = tokenizer->encode(text);
  for (const int threads : {2, 3, 8}) {
    INFO(threads << " threads");
    CHECK(llm::encode_in_parallel(*tokenizer, text, threads) == expected);
  }
  // A document's literal <|endoftext|> is its text, never the separator's id.
  const auto ids = llm::encode_in_parallel(*tokenizer, "a<|endoftext|>b", 1);
  CHECK(std::find(ids.begin(), ids.end(), 50256) == ids.end());
  CHECK(tokenizer->decode(ids) == "a<|endoftext|>b");
}

namespace {

// Writes `text` to `path`.
void write(const std::filesystem::path& path, const std::string& text) { llm::write_file_atomic(path, text); }

std::string fnv_name(const std::string& text) { return llm::hash_name(llm::fnv1a64(text)); }

}  // namespace

TEST_CASE("prepare writes the one-thread ids of the documents joined by <|endoftext|>, in small rounds") {
  const auto* tokenizer = gpt2_or_skip();
  const std::string moby = llm::read_text_file(llm::test::data_or_skip("moby-dick.txt"));
  const std::string verdict = llm::read_text_file(llm::test::data_or_skip("the-verdict.txt"));
  const auto dir = llm::test::temp_dir("prepare");
  std::filesystem::create_directories(dir / "corpus" / "b");
  std::filesystem::create_directories(dir / "corpus" / ".hidden");
  write(dir / "corpus" / "a.txt", verdict);
  write(dir / "corpus" / "b" / "moby.txt", moby);
  write(dir / "corpus" / "b" / "empty.txt", "");
  write(dir / "corpus" / ".hidden" / "x.txt", "left out");
  write(dir / "corpus" / ".notes", "left out");
  const std::string text = verdict + "<|endoftext|>" + moby;  // a.txt, then b/moby.txt
  const auto expected = tokenizer->encode(text, {"<|endoftext|>"});

  llm::PrepareOptions options;
  options.inputs = {dir / "corpus"};
  options.out = dir / "corpus.bin";
  options.threads = 3;
  options.block_bytes = 4096;  // hundreds of rounds, each cut at its last safe cut
  int64_t rounds = 0, last_done = 0, last_total = 0;
  options.on_progress = [&](int64_t done, int64_t total) {
    ++rounds;
    last_done = done;
    last_total = total;
  };
  const auto files = llm::prepare_token_files(*tokenizer, options);
  CHECK(llm::TokenFile(options.out).ids() == expected);
  CHECK(files.train.tokens == static_cast<int64_t>(expected.size()));
  CHECK(files.train.documents == 2);
  CHECK(files.empty_files == 1);
  CHECK(files.train.source_bytes == static_cast<int64_t>(text.size()));
  CHECK(files.train.source_hash == fnv_name(text));
  CHECK(files.train.vocab_hash == llm::vocabulary_hash(tokenizer->vocabulary()));
  CHECK(rounds > 200);
  CHECK(last_done == last_total);
  CHECK(last_total == static_cast<int64_t>(verdict.size() + moby.size()));

  // The last tenth validates: the two files are the whole's ids, cut where the text is.
  options.val_fraction = 0.1;
  options.val_out = dir / "corpus.val.bin";
  options.on_progress = nullptr;
  const auto split = llm::prepare_token_files(*tokenizer, options);
  const auto train = llm::TokenFile(options.out).ids(), val = llm::TokenFile(options.val_out).ids();
  CHECK(joined(train, val) == expected);
  const auto cut = static_cast<size_t>(split.train.source_bytes);
  CHECK(cut >= static_cast<size_t>(0.9 * static_cast<double>(verdict.size() + moby.size())));
  CHECK(cut < static_cast<size_t>(0.9 * static_cast<double>(verdict.size() + moby.size())) + 200);
  CHECK(train == tokenizer->encode(text.substr(0, cut), {"<|endoftext|>"}));
  CHECK(split.train.source_hash == fnv_name(text.substr(0, cut)));
  CHECK(split.val.source_hash == fnv_name(text.substr(cut)));
  CHECK(split.val.documents == 1);  // the rest of Moby Dick
  CHECK(split.train.documents == 2);

  // A separate validation text.
  options.val_fraction = 0;
  options.inputs = {dir / "corpus" / "a.txt"};
  options.val_inputs = {dir / "corpus" / "b" / "moby.txt"};
  llm::prepare_token_files(*tokenizer, options);
  CHECK(llm::TokenFile(options.out).ids() == tokenizer->encode(verdict));
  CHECK(llm::TokenFile(options.val_out).size() == static_cast<int64_t>(tokenizer->encode(moby).size()));

  // A file's own "<|endoftext|>" is its text (nanoGPT's encode_ordinary): one document,
  // no separator id.
  write(dir / "literal.txt", "a<|endoftext|>b");
  llm::PrepareOptions literal;
  literal.inputs = {dir / "literal.txt"};
  literal.out = dir / "literal.bin";
  const auto one = llm::prepare_token_files(*tokenizer, literal);
  CHECK(one.train.documents == 1);
  CHECK(llm::TokenFile(literal.out).ids() == tokenizer->encode("a<|endoftext|>b"));
}

TEST_CASE("prepare refuses bad input naming it, and a stopped or failed run leaves no file") {
  const auto* tokenizer = gpt2_or_skip();
  const auto dir = llm::test::temp_dir("prepare-bad");
  write(dir / "good.txt", "Every effort moves you.\nAnd more.\n");
  write(dir / "bad.txt", "Every effort moves you.\nAnd \xff more.\n");
  llm::PrepareOptions options;
  options.out = dir / "out.bin";
  options.inputs = {dir / "good.txt", dir / "bad.txt"};
  CHECK_THROWS_WITH(llm::prepare_token_files(*tokenizer, options),
                    Catch::Contains("bad.txt': invalid UTF-8 at byte 28; expected UTF-8 text"));
  options.inputs = {dir / "good.txt"};
  options.out = dir / "good.txt";  // replacing its own input would lose it
  CHECK_THROWS_WITH(llm::prepare_token_files(*tokenizer, options),
                    Catch::Contains("good.txt': it is also an input"));
  CHECK(llm::read_file(dir / "good.txt") == "Every effort moves you.\nAnd more.\n");
  options.out = dir / "out.bin";
  options.inputs = {dir / "missing.txt"};
  CHECK_THROWS_WITH(llm::prepare_token_files(*tokenizer, options),
                    Catch::Contains("missing.txt': no such file or folder"));
  std::filesystem::create_directories(dir / "empty-folder");
  options.inputs = {dir / "empty-folder"};
  CHECK_THROWS_WITH(llm::prepare_token_files(*tokenizer, options), Catch::Contains("a folder with no files"));
  options.inputs = {dir / "good.txt"};
  options.should_stop = [] { return true; };
  CHECK(llm::prepare_token_files(*tokenizer, options).stopped);
  // More than 64 MB with nowhere to cut, read 1 MB at a time.
  write(dir / "one-word.txt", std::string(size_t{66} << 20, 'a'));
  options.inputs = {dir / "one-word.txt"};
  options.block_bytes = size_t{1} << 20;
  options.should_stop = nullptr;
  CHECK_THROWS_WITH(llm::prepare_token_files(*tokenizer, options), Catch::Contains("no place to cut the text"));
  // None of these left a file behind, finished or temporary.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    INFO(entry.path().string());
    CHECK(entry.path().filename().string().rfind("out", 0) != 0);
    CHECK(entry.path().filename().string().rfind(".out", 0) != 0);
  }
  // What a SIGKILLed run left half-written beside the output is removed by the next.
  write(dir / ".out.bin.Ab12Cd", "half a file");
  options.inputs = {dir / "good.txt"};
  options.block_bytes = llm::PrepareOptions().block_bytes;
  const auto files = llm::prepare_token_files(*tokenizer, options);
  CHECK(files.removed_partials == 1);
  CHECK_FALSE(std::filesystem::exists(dir / ".out.bin.Ab12Cd"));
}
