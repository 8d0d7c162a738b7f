// The server's request bodies (parse_generation_request) for each of its four
// endpoints, picked by the first byte, and as a classifier's (parse_classify_request): any bytes are a request or a RequestError with
// a 4xx status and a one-line message. An accepted request's values are in range,
// and its answer, written in its API's shape around the body's own text, parses as JSON.
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "fuzz.h"
#include "llm/serve/api.h"

namespace {

using llm::serve::Endpoint;

void check_request(const llm::serve::GenerationRequest& r) {
  llm::fuzz::require(!r.temperature || (std::isfinite(*r.temperature) && *r.temperature >= 0), "a temperature out of range");
  llm::fuzz::require(!r.top_k || *r.top_k >= 0, "a negative top_k");
  llm::fuzz::require(!r.max_tokens || *r.max_tokens >= 0, "a negative max tokens");
  for (const auto& m : r.messages) {
    llm::fuzz::require(m.role == "system" || m.role == "user" || m.role == "assistant", "a role of no turn");
  }
  for (const auto& stop : r.stop) llm::fuzz::require(!stop.empty(), "an empty stop string");
}

void check_refusal(const llm::serve::RequestError& e) {
  llm::fuzz::require(e.status >= 400 && e.status < 500, "a refusal that is not 4xx");
  llm::fuzz::require(e.message.find('\n') == std::string::npos && e.message.size() < 1000, "a refusal not one short line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  constexpr Endpoint kEndpoints[] = {Endpoint::kOllamaGenerate, Endpoint::kOllamaChat, Endpoint::kOpenAiCompletions,
                                     Endpoint::kOpenAiChat};
  const auto endpoint = kEndpoints[data[0] % 4];
  const std::string body = llm::fuzz::bytes(data + 1, size - 1);
  try {
    auto request = llm::serve::parse_generation_request(endpoint, body);
    check_request(request);
    llm::serve::GenerationStats stats;
    for (const bool stream : {false, true}) {
      request.stream = stream;
      const llm::serve::ReplyWriter writer(request, request.model, "id", 0);
      // The body's bytes as the answer's text: any bytes must come out as JSON.
      const auto piece = writer.chunk(body);
      const auto end = writer.finish(body, stats);
      if (!stream) llm::fuzz::require(nlohmann::json::accept(end), "a whole answer that is not JSON");
      if (stream && !piece.empty() && llm::serve::api_of(endpoint) == llm::serve::Api::kOllama) {
        llm::fuzz::require(nlohmann::json::accept(piece), "a streamed line that is not JSON");
      }
    }
  } catch (const llm::serve::RequestError& e) {
    check_refusal(e);
  }
  // The same body as a classifier's request.
  try {
    const auto request = llm::serve::parse_classify_request(body);
    const auto answer = llm::serve::classify_answer(request.model, {"not spam", "spam"}, {0.25, 0.75});
    llm::fuzz::require(nlohmann::json::accept(answer), "a classifier's answer that is not JSON");
  } catch (const llm::serve::RequestError& e) {
    check_refusal(e);
  }
  return 0;
}
