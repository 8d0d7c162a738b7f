#include <nlohmann/json.hpp>

#include <map>

#include "helpers.h"
#include "llm/text/chat_format.h"
#include "llm/text/tokenizer_json.h"
#include "llm/util/error.h"

namespace {

using Ids = std::vector<int64_t>;

// The fetched tokenizer NAME (data/tokenizers/NAME/); the test case is skipped when it
// was not fetched.
const llm::BpeTokenizer& tokenizer_or_skip(const std::string& name) {
  llm::test::data_or_skip("tokenizers/" + name + "/tokenizer.json");
  static std::map<std::string, llm::BpeTokenizer> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) it = loaded.emplace(name, llm::tokenizer_named(name)).first;
  return it->second;
}

const nlohmann::json& golden() {
  static const auto json = nlohmann::json::parse(llm::read_file(llm::test::golden("tokenizer-json.json")));
  return json;
}

// What decode() gives back for `text`: Qwen3's NFC of it; Gemma 3's with "▁", which
// stands for a space, as a space.
std::string normalized(const std::string& name, const std::string& text) {
  if (name == "qwen3") return llm::normalize(text, {{llm::Normalization::Kind::kNfc, "", ""}});
  if (name == "gemma3") return llm::normalize(text, {{llm::Normalization::Kind::kReplace, "\u2581", " "}});
  return text;
}

void check_strings(const std::string& name) {
  const auto& tokenizer = tokenizer_or_skip(name);
  const auto& expected = golden()["tokenizers"][name];
  REQUIRE(expected["strings"].size() > 150);
  for (const auto& c : expected["strings"]) {
    const auto text = c["text"].get<std::string>();
    INFO(name << ": " << nlohmann::json(text).dump());
    const auto ids = tokenizer.encode(text);
    CHECK(ids == c["ids"].get<Ids>());
    CHECK(tokenizer.decode(ids) == normalized(name, text));
  }
  const auto& long_texts = golden()["long"];
  REQUIRE(long_texts.size() == expected["long"].size());
  for (size_t k = 0; k < long_texts.size(); ++k) {
    const auto text = long_texts[k].get<std::string>();
    INFO(name << ": long piece " << k << ", " << text.size() << " bytes");
    const auto ids = tokenizer.encode(text);
    CHECK(static_cast<int64_t>(ids.size()) == expected["long"][k]["count"].get<int64_t>());
    CHECK(llm::test::fnv1a64_of_ids(ids) == expected["long"][k]["fnv1a64"].get<std::string>());
  }
}

void check_books(const std::string& name) {
  const auto verdict = llm::test::data_or_skip("the-verdict.txt");
  const auto moby = llm::test::data_or_skip("moby-dick.txt");
  const auto& tokenizer = tokenizer_or_skip(name);
  for (const auto& path : {verdict, moby}) {
    const std::string text = llm::read_text_file(path);
    const auto& expected = golden()["tokenizers"][name]["files"][path.filename().string()];
    INFO(name << ": " << path.filename().string());
    const auto ids = tokenizer.encode(text);
    CHECK(static_cast<int64_t>(ids.size()) == expected["count"].get<int64_t>());
    CHECK(Ids(ids.begin(), ids.begin() + 20) == expected["first"].get<Ids>());
    CHECK(llm::test::fnv1a64_of_ids(ids) == expected["fnv1a64"].get<std::string>());
    CHECK(tokenizer.decode(ids) == normalized(name, text));
  }
}

void check_chats(const std::string& name) {
  const auto& tokenizer = tokenizer_or_skip(name);
  const auto& cases = golden()["tokenizers"][name]["chats"];
  REQUIRE(cases.size() == 4);
  for (const auto& c : cases) {
    std::vector<llm::ChatMessage> messages;
    for (const auto& m : c["messages"]) messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
    const llm::ChatOptions options{c["generation_prompt"].get<bool>(), c["thinking"].get<bool>()};
    INFO(name << ": " << messages.size() << " messages, generation prompt " << options.generation_prompt
              << ", thinking " << options.thinking);
    CHECK(llm::encode_chat(tokenizer, llm::chat_format_named(name), messages, options) == c["ids"].get<Ids>());
  }
}

}  // namespace

TEST_CASE("the chat formats give the ids of the course's tokenizer classes (Qwen3Tokenizer, ChatFormat, GemmaTokenizer)") {
  check_chats("qwen3");
  check_chats("llama3");
  check_chats("gemma3");
}

TEST_CASE("a chat format refuses a tokenizer without its special tokens, an unknown role and an unknown name") {
  const auto& qwen3 = tokenizer_or_skip("qwen3");
  const std::vector<llm::ChatMessage> question{{"user", "Hi"}};
  CHECK_THROWS_WITH(llm::encode_chat(qwen3, llm::ChatFormat::kLlama3, question),
                    "the llama3 chat format needs the special token '<|begin_of_text|>', which the tokenizer does not have");
  CHECK_THROWS_WITH(llm::encode_chat(qwen3, llm::ChatFormat::kQwen3, std::vector<llm::ChatMessage>{{"tool", "x"}}),
                    "chat message role 'tool': expected system, user or assistant");
  CHECK_THROWS_WITH(llm::chat_format_named("alpaca"), "unknown chat format 'alpaca': expected one of qwen3, llama3, gemma3");
  CHECK(llm::chat_stop_ids(qwen3, llm::ChatFormat::kQwen3) == Ids{151645, 151643});
  CHECK(llm::chat_format_named("llama32") == llm::ChatFormat::kLlama3);
}

TEST_CASE("Llama 3's tokenizer.json gives @lenml/tokenizers' ids on hard, random, special and long strings") {
  check_strings("llama3");
}
TEST_CASE("Qwen3's tokenizer.json gives @lenml/tokenizers' ids on hard, random, special and long strings") {
  check_strings("qwen3");
}
TEST_CASE("Gemma 3's tokenizer.json gives @lenml/tokenizers' ids on hard, random, special and long strings") {
  check_strings("gemma3");
}
TEST_CASE("Llama 3's tokenizer.json gives @lenml/tokenizers' ids on the-verdict and Moby Dick") { check_books("llama3"); }
TEST_CASE("Qwen3's tokenizer.json gives @lenml/tokenizers' ids on the-verdict and Moby Dick") { check_books("qwen3"); }
TEST_CASE("Gemma 3's tokenizer.json gives @lenml/tokenizers' ids on the-verdict and Moby Dick") { check_books("gemma3"); }

TEST_CASE("added tokens are recognised anywhere, by their content, and found by name") {
  const auto& qwen3 = tokenizer_or_skip("qwen3");
  CHECK(qwen3.special_token("<|im_start|>") == 151644);
  CHECK(qwen3.special_token("<think>") == 151667);
  CHECK(qwen3.encode("<|im_start|>user") == Ids{151644, 872});
  CHECK(qwen3.encode("<|im_start|>user", {"<|im_start|>"}) == Ids{151644, 872});
  CHECK(qwen3.decode({151644, 872}) == "<|im_start|>user");
  CHECK_THROWS_WITH(qwen3.encode("x", {"<|pad|>"}), Catch::Contains("'<|pad|>' is not a special token"));
}

TEST_CASE("Hugging Face's \\s is Unicode's White_Space: U+0085 is in it, U+FEFF and U+180E are not") {
  using V = std::vector<std::string_view>;
  const auto pieces = [](std::string_view pattern, std::string_view text) {
    V out;
    llm::PieceSplit::regex(llm::pcre2_pattern_from_hf(pattern), llm::SplitBehavior::kIsolated)
        .for_each_piece(text, [&](std::string_view p) { out.push_back(p); });
    return out;
  };
  CHECK(pieces("\\s+", "a\u0085b\ufeffc\u180ed") == V{"a", "\u0085", "b\ufeffc\u180ed"});
  CHECK(pieces("[^\\s\\p{L}]+", "ab \u0085!?\ufeff") == V{"ab \u0085", "!?\ufeff"});
  CHECK(pieces("\\S+", "x\u0085y\ufeffz") == V{"x", "\u0085", "y\ufeffz"});
  CHECK(pieces("\\\\s", "a\\sb s") == V{"a", "\\s", "b s"});
  CHECK_THROWS_WITH(llm::pcre2_pattern_from_hf("[\\S]"), Catch::Contains("\\S inside a character class"));
}

TEST_CASE("a split keeps, drops or joins its matches as its behavior says") {
  using V = std::vector<std::string_view>;
  const auto pieces = [](llm::SplitBehavior behavior, std::string_view text) {
    V out;
    llm::PieceSplit::literal("-", behavior).for_each_piece(text, [&](std::string_view p) { out.push_back(p); });
    return out;
  };
  CHECK(pieces(llm::SplitBehavior::kIsolated, "a-b--c-") == V{"a", "-", "b", "-", "-", "c", "-"});
  CHECK(pieces(llm::SplitBehavior::kRemoved, "a-b--c-") == V{"a", "b", "c"});
  CHECK(pieces(llm::SplitBehavior::kMergedWithPrevious, "a-b--c-") == V{"a-", "b-", "-", "c-"});
  CHECK(pieces(llm::SplitBehavior::kMergedWithNext, "a-b--c-") == V{"a", "-b", "-", "-c", "-"});
  CHECK_THROWS_WITH(llm::PieceSplit::literal("", llm::SplitBehavior::kIsolated), Catch::Contains("must not be empty"));
}

namespace {

// A SentencePiece-style tokenizer.json small enough to read: characters, one merge,
// byte fallback for 'é' only, an unknown token and one added token.
nlohmann::json tiny_tokenizer_json() {
  return nlohmann::json::parse(R"({
    "added_tokens": [{"id": 6, "content": "<eos>", "special": true}],
    "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    "pre_tokenizer": {"type": "Split", "pattern": {"String": "▁"}, "behavior": "MergedWithNext", "invert": false},
    "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                                 {"type": "ByteFallback"}, {"type": "Fuse"}]},
    "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "byte_fallback": true,
              "vocab": {"<unk>": 0, "a": 1, "b": 2, "▁": 3, "<0xC3>": 4, "<0xA9>": 5, "<eos>": 6, "ab": 7, "▁ab": 8},
              "merges": [["a", "b"], "▁ ab"]}
  })");
}

llm::BpeTokenizer tiny(const nlohmann::json& json) { return llm::parse_tokenizer_json(json.dump(), "tiny"); }

}  // namespace

TEST_CASE("a SentencePiece-style tokenizer.json: merges, byte fallback, the unknown token, added tokens") {
  const auto tokenizer = tiny(tiny_tokenizer_json());
  CHECK(tokenizer.encode("ab ab") == Ids{7, 8});
  CHECK(tokenizer.encode("abé<eos>ba") == Ids{7, 4, 5, 6, 2, 1});
  CHECK(tokenizer.encode("xyz b") == Ids{0, 3, 2});  // x, y and z fuse into one unknown token
  CHECK(tokenizer.decode({7, 8, 4, 5, 6}) == "ab ab\xc3\xa9<eos>");
  CHECK(tokenizer.special_token("<eos>") == 6);
}

TEST_CASE("a tokenizer.json that cannot be read is refused with one line naming the file and the part") {
  const auto refused = [](const std::function<void(nlohmann::json&)>& change, const std::string& message) {
    auto json = tiny_tokenizer_json();
    change(json);
    INFO(message);
    CHECK_THROWS_WITH(tiny(json), Catch::Contains("tokenizer.json 'tiny': ") && Catch::Contains(message));
  };
  refused([](auto& j) { j["model"]["type"] = "Unigram"; }, "model type \"Unigram\" is not supported");
  refused([](auto& j) { j["model"].erase("vocab"); }, "expected an object \"vocab\"");
  refused([](auto& j) { j["model"]["vocab"]["ab"] = -1; }, "token \"ab\": expected an id from 0");
  refused([](auto& j) { j["model"]["vocab"]["ab"] = 9; }, "token ids must be dense: id 7 has no token");
  refused([](auto& j) { j["model"]["vocab"]["zz"] = 1; }, "id 1 is given to");
  refused([](auto& j) { j["model"]["merges"].push_back("a q"); }, "model.merges[2]: \"q\" is not a token");
  refused([](auto& j) { j["model"]["merges"].push_back("a b c"); }, "model.merges[2]: expected \"LEFT RIGHT\"");
  refused([](auto& j) { j["model"]["merges"].push_back(7); }, "model.merges[2]: expected");
  refused([](auto& j) { j["model"]["merges"].push_back({"b", "a"}); }, "merge 2 makes a string that is no token");
  refused([](auto& j) { j["model"]["unk_token"] = "<none>"; }, "unk_token \"<none>\" is not in the vocabulary");
  refused([](auto& j) { j["model"]["dropout"] = 0.1; }, "BPE dropout is not supported");
  refused([](auto& j) { j["normalizer"]["type"] = "NFKC"; }, "normalizer type \"NFKC\" is not supported");
  refused([](auto& j) { j["pre_tokenizer"]["type"] = "Whitespace"; }, "pre_tokenizer type \"Whitespace\"");
  refused([](auto& j) { j["pre_tokenizer"]["behavior"] = "Contiguous"; }, "behavior \"Contiguous\" is not supported");
  refused([](auto& j) { j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "("}}}, {"behavior", "Isolated"}}; },
          "pre_tokenizer Split: regex '('");
  refused([](auto& j) { j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Sequence"}}}}}; },
          "a Sequence holds objects that are not Sequences");
  refused([](auto& j) { j["decoder"] = {{"type", "WordPiece"}}; }, "decoder type \"WordPiece\" is not supported");
  refused([](auto& j) { j["added_tokens"][0]["lstrip"] = true; }, "added token \"<eos>\": lstrip is not supported");
  refused([](auto& j) { j["added_tokens"][0]["content"] = "<bos>"; }, "id 6 is \"<eos>\" in model.vocab but \"<bos>\"");
  refused([](auto& j) { j["added_tokens"][0]["content"] = ""; }, "the content is empty");
  CHECK_THROWS_WITH(llm::parse_tokenizer_json("{\"model\": [", "tiny"), Catch::Contains("tokenizer.json 'tiny': not valid JSON"));
  CHECK_THROWS_WITH(llm::parse_tokenizer_json("[]", "tiny"), Catch::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(llm::tokenizer_named("no/such/tokenizer.json"), Catch::Contains("no/such/tokenizer.json"));
}
