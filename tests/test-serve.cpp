// The server's parts that need no socket: requests of both APIs read and refused,
// answers in each API's shape, the text of a stream with stop strings and split
// characters, the chat formats of chapter-7 models, and a job's life in the engine.
#include <nlohmann/json.hpp>

#include <string>
#include <thread>
#include <vector>

#include "helpers.h"
#include "llm/model/generate.h"
#include "llm/model/model_config.h"
#include "llm/serve/api.h"
#include "llm/serve/model_engine.h"
#include "llm/serve/prompt_format.h"
#include "llm/serve/text_stream.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/util/files.h"
#include "llm/util/utf8.h"

using llm::serve::Endpoint;
using llm::serve::GenerationRequest;
using llm::serve::parse_generation_request;
using nlohmann::json;

namespace {

// The RequestError a body gets, or a failed check when it is accepted.
llm::serve::RequestError refusal(Endpoint endpoint, const std::string& body) {
  try {
    parse_generation_request(endpoint, body);
  } catch (const llm::serve::RequestError& e) {
    return e;
  }
  FAIL("accepted: " << body);
  return {};
}

const llm::BpeTokenizer& gpt2() {
  llm::test::data_or_skip("gpt2/encoder.json");
  static const auto tokenizer = llm::BpeTokenizer::gpt2();
  return tokenizer;
}

// A job's tokens as the worker gives them, and whether it ended by length; at most 10 s.
std::pair<std::vector<int64_t>, bool> collect(llm::serve::Job& job) {
  std::vector<int64_t> tokens;
  for (int i = 0; i < 200; ++i) {
    auto taken = job.take(std::chrono::milliseconds(50));
    tokens.insert(tokens.end(), taken.tokens.begin(), taken.tokens.end());
    if (taken.finished) return {tokens, taken.length};
  }
  FAIL("the job did not end within 10 s");
  return {};
}

}  // namespace

TEST_CASE("Ollama's requests: stream unless told not to, options inside \"options\"") {
  const auto r = parse_generation_request(
      Endpoint::kOllamaGenerate,
      R"({"model": "m", "prompt": "Hi", "system": "Be brief.", "keep_alive": "5m",
          "options": {"temperature": 0.5, "top_k": 40.0, "num_predict": 7, "seed": -1, "stop": ["\n", ""]}})");
  CHECK(r.stream);
  CHECK(r.model == "m");
  CHECK(r.prompt == "Hi");
  REQUIRE(r.messages.size() == 2);
  CHECK(r.messages[0].role == "system");
  CHECK(r.messages[1].content == "Hi");
  CHECK(*r.temperature == 0.5);
  CHECK(*r.top_k == 40);
  CHECK(*r.max_tokens == 7);
  CHECK(*r.seed == 18446744073709551615ULL);  // as torch.manual_seed(-1)
  CHECK(r.stop == std::vector<std::string>{"\n"});

  const auto unlimited = parse_generation_request(Endpoint::kOllamaChat,
                                                  R"({"messages": [{"role": "user", "content": "x"}], "stream": false,
                                                      "options": {"num_predict": -1}})");
  CHECK_FALSE(unlimited.stream);
  CHECK_FALSE(unlimited.max_tokens);
}

TEST_CASE("OpenAI's requests: whole unless streamed, text parts, one prompt, one answer") {
  const auto chat = parse_generation_request(
      Endpoint::kOpenAiChat, R"({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"},
                                 {"type": "text", "text": "b"}]}], "max_completion_tokens": 3, "stop": "END", "user": "u"})");
  CHECK_FALSE(chat.stream);
  CHECK(chat.messages.at(0).content == "ab");
  CHECK(*chat.max_tokens == 3);
  CHECK(chat.stop == std::vector<std::string>{"END"});
  const auto completion = parse_generation_request(Endpoint::kOpenAiCompletions, R"({"prompt": ["Once"], "stream": true})");
  CHECK(completion.raw);
  CHECK(completion.stream);
  CHECK(completion.prompt == "Once");
}

TEST_CASE("Requests refused with 400 and a line naming the key") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not valid JSON"},
      {"[1]", "expected a JSON object"},
      {std::string(100, '[') + std::string(100, ']'), "nested more than 64"},
      {R"({"prompt": 1})", "'prompt' must be a string, got 1"},
      {R"({"model": "m"})", "'prompt' is missing"},
      {R"({"prompt": "x", "stream": "yes"})", "'stream' must be true or false"},
      {R"({"prompt": "x", "options": []})", "'options' must be an object"},
      {R"({"prompt": "x", "options": {"temperature": -0.5}})", "'temperature' must be 0 (greedy)"},
      {R"({"prompt": "x", "options": {"temperature": 1e-40}})", "'temperature' must be 0 (greedy)"},
      {R"({"prompt": "x", "options": {"top_k": -1}})", "'top_k' must be >= 0, got -1"},
      {R"({"prompt": "x", "options": {"top_k": 1.5}})", "'top_k' must be an integer"},
      {R"({"prompt": "x", "options": {"seed": 1e300}})", "'seed' must be an integer"},
      {R"({"prompt": "x", "options": {"stop": [1]}})", "'stop' must be a list of strings"},
  };
  for (const auto& [body, words] : cases) {
    const auto e = refusal(Endpoint::kOllamaGenerate, body);
    INFO(body.substr(0, 60) << " -> " << e.message);
    CHECK(e.status == 400);
    CHECK(e.message.find(words) != std::string::npos);
  }
  CHECK(refusal(Endpoint::kOpenAiChat, R"({"messages": [{"role": "tool", "content": "x"}]})").message.find("'role'") !=
        std::string::npos);
  CHECK(refusal(Endpoint::kOpenAiChat, R"({"messages": [{"role": "user", "content": "x"}], "n": 2})").message ==
        "'n' must be 1, got 2");
  CHECK(refusal(Endpoint::kOpenAiCompletions, R"({"prompt": "x", "max_tokens": 0})").message ==
        "'max_tokens' must be at least 1, got 0");
  // A long wrong value is named by an excerpt, not echoed whole.
  const auto long_value = refusal(Endpoint::kOllamaGenerate, R"({"prompt": "x", "stream": ")" + std::string(100000, 'a') + R"("})");
  CHECK(long_value.message.size() < 200);
}

TEST_CASE("Answers in each API's shape, streamed and whole") {
  llm::serve::GenerationStats stats;
  stats.prompt_tokens = 4;
  stats.completion_tokens = 2;
  stats.finish = llm::serve::FinishReason::kLength;

  auto request = parse_generation_request(Endpoint::kOllamaChat, R"({"messages": [{"role": "user", "content": "x"}]})");
  const llm::serve::ReplyWriter ollama(request, "m", "id", 1);
  CHECK(ollama.content_type() == "application/x-ndjson");
  const auto piece = json::parse(ollama.chunk("He"));
  CHECK(piece["message"]["content"] == "He");
  CHECK(piece["done"] == false);
  CHECK(ollama.chunk("").empty());
  const auto end = json::parse(ollama.finish("Hello", stats));
  CHECK(end["done"] == true);
  CHECK(end["done_reason"] == "length");
  CHECK(end["eval_count"] == 2);
  CHECK(end["message"]["content"] == "");  // streamed: the text came in the pieces

  request = parse_generation_request(Endpoint::kOpenAiChat, R"({"messages": [{"role": "user", "content": "x"}]})");
  const llm::serve::ReplyWriter whole(request, "m", "chatcmpl-1", 1);
  CHECK(whole.content_type() == "application/json");
  const auto answer = json::parse(whole.finish("Hello \xff", stats));
  CHECK(answer["object"] == "chat.completion");
  CHECK(answer["choices"][0]["message"]["content"] == "Hello \xEF\xBF\xBD");  // bytes that are not UTF-8: U+FFFD
  CHECK(answer["choices"][0]["finish_reason"] == "length");
  CHECK(answer["usage"]["total_tokens"] == 6);

  request.stream = true;
  const llm::serve::ReplyWriter events(request, "m", "chatcmpl-2", 1);
  CHECK(events.content_type() == "text/event-stream");
  const auto event = events.chunk("Hi");
  REQUIRE(event.rfind("data: ", 0) == 0);
  CHECK(json::parse(event.substr(6))["choices"][0]["delta"]["content"] == "Hi");
  const auto last = events.finish("", stats);
  CHECK(last.size() > 20);
  CHECK(last.substr(last.size() - 14) == "data: [DONE]\n\n");

  CHECK(json::parse(llm::serve::error_body(llm::serve::Api::kOllama, 400, "bad"))["error"] == "bad");
  CHECK(json::parse(llm::serve::error_body(llm::serve::Api::kOpenAi, 429, "busy"))["error"]["type"] == "rate_limit_error");
}

TEST_CASE("A classifier's request and answer") {
  const auto request = llm::serve::parse_classify_request(R"({"model": "m", "text": "WIN now"})");
  CHECK(request.model == "m");
  CHECK(request.text == "WIN now");
  try {
    llm::serve::parse_classify_request(R"({"texts": ["a"]})");
    FAIL("a request without a text was accepted");
  } catch (const llm::serve::RequestError& e) {
    CHECK(e.status == 400);
    CHECK(e.message == "'text' is missing; expected the text to classify");
  }
  const auto answer = json::parse(llm::serve::classify_answer("m", {"not spam", "spam"}, {0.2, 0.8}));
  CHECK(answer["label"] == "spam");
  CHECK(answer["probabilities"]["not spam"] == 0.2);
}

TEST_CASE("A stream's text: stop strings across tokens, and characters split across tokens") {
  const auto& tokenizer = gpt2();
  const auto ids = tokenizer.encode("Hello world, this is the end of it.");
  llm::serve::TextStream plain(tokenizer, {});
  std::string text;
  for (const auto id : ids) text += plain.add(id);
  text += plain.flush();
  CHECK(text == "Hello world, this is the end of it.");

  // " the end" spans tokens; nothing of it is given, and "the e" is held until it cannot be the stop.
  llm::serve::TextStream stopped(tokenizer, {" the end", "never"});
  std::string given;
  for (const auto id : ids) {
    given += stopped.add(id);
    CHECK(given.find(" the") == std::string::npos);
  }
  CHECK(stopped.stopped());
  CHECK(given + stopped.flush() == "Hello world, this is");

  // "é" is two bytes; a byte-level tokenizer may give them as two tokens.
  const auto accent = tokenizer.encode("café crème");
  llm::serve::TextStream split(tokenizer, {});
  std::string whole;
  for (const auto id : accent) {
    const auto piece = split.add(id);
    CHECK(llm::first_invalid_utf8(piece) == std::string::npos);
    whole += piece;
  }
  CHECK(whole + split.flush() == "café crème");
}

TEST_CASE("Chat formats: a chapter-7 model's turns in its prompt style, the text of a pretrained one") {
  const auto& tokenizer = gpt2();
  const std::vector<llm::ChatMessage> turns = {{"user", "Name a color."}, {"assistant", "Blue."}, {"user", "Another?"}};
  const auto alpaca = tokenizer.decode(llm::serve::PromptFormat::named("alpaca").chat_ids(tokenizer, turns, false));
  CHECK(alpaca ==
        "Below is an instruction that describes a task. Write a response that appropriately completes the request."
        "\n\n### Instruction:\nName a color.\n\n### Response:\nBlue.\n\n"
        "Below is an instruction that describes a task. Write a response that appropriately completes the request."
        "\n\n### Instruction:\nAnother?\n\n### Response:\n");
  const auto phi3 = tokenizer.decode(llm::serve::PromptFormat::named("phi3").chat_ids(tokenizer, turns, false));
  CHECK(phi3 == "<|user|>\nName a color.\n<|assistant|>:\nBlue.\n\n<|user|>\nAnother?\n<|assistant|>:\n");
  const auto text = tokenizer.decode(llm::serve::PromptFormat::named("text").chat_ids(tokenizer, turns, false));
  CHECK(text == "Name a color.\nBlue.\nAnother?");
  CHECK(llm::serve::PromptFormat::named("alpaca").stop_ids(tokenizer) == std::vector<int64_t>{50256});
  CHECK_THROWS_WITH(llm::serve::PromptFormat::named("chatml"), Catch::Contains("expected one of text, alpaca"));
}

TEST_CASE("The engine: generate()'s tokens one at a time, a cancelled job stops, a full queue refuses") {
  torch::manual_seed(3);
  auto config = llm::ModelConfig::load("configs/tiny.json");
  auto model = config.make();
  model->eval();
  const std::vector<int64_t> prompt = {15496, 11, 314, 716};
  const auto expected = llm::generate(*model, torch::tensor(prompt).unsqueeze(0), llm::SamplingOptions(10));

  llm::serve::ModelEngine engine(model, /*queue_limit=*/1);
  llm::serve::Sampling sampling;
  sampling.max_tokens = 10;
  auto job = std::make_shared<llm::serve::Job>(prompt, sampling, std::vector<int64_t>{});
  engine.submit(job);
  const auto [got, by_length] = collect(*job);
  CHECK(by_length);
  const auto want = expected.slice(1, 4).flatten();
  CHECK(got == std::vector<int64_t>(want.data_ptr<int64_t>(), want.data_ptr<int64_t>() + want.numel()));

  // A stop id ends the answer before it.
  auto stop_job = std::make_shared<llm::serve::Job>(prompt, sampling, std::vector<int64_t>{got.at(2)});
  engine.submit(stop_job);
  const auto [before_stop, stop_by_length] = collect(*stop_job);
  CHECK_FALSE(stop_by_length);
  CHECK(before_stop == std::vector<int64_t>(got.begin(), got.begin() + 2));

  // A job cancelled before it starts generates nothing.
  engine.stop();
  auto late = std::make_shared<llm::serve::Job>(prompt, sampling, std::vector<int64_t>{});
  engine.submit(late);
  const auto taken = late->take(std::chrono::milliseconds(0));
  CHECK(taken.finished);
  CHECK(taken.error == "the server is stopping");
}
