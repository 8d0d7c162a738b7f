#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/text/chat_format.h"

namespace llm::serve {

/// The two APIs the server speaks: Ollama's REST API (/api/...) and OpenAI's (/v1/...).
enum class Api { kOllama, kOpenAi };

/// The generation endpoints: Ollama's /api/generate and /api/chat, OpenAI's
/// /v1/completions and /v1/chat/completions.
enum class Endpoint { kOllamaGenerate, kOllamaChat, kOpenAiCompletions, kOpenAiChat };

Api api_of(Endpoint endpoint);
bool is_chat(Endpoint endpoint);

/// A request the server refuses: the HTTP status (4xx) and one line saying why.
struct RequestError {
  int status = 400;
  std::string message;
};

/// What a generation request asks for, from either API. Options the request leaves
/// out stay empty and take the server's defaults.
struct GenerationRequest {
  Endpoint endpoint = Endpoint::kOllamaGenerate;
  std::string model;
  /// A chat's turns; a completion's prompt is one user turn unless `raw`.
  std::vector<ChatMessage> messages;
  std::string prompt;
  /// The prompt as it is, with no chat format (Ollama's "raw", and OpenAI's completions).
  bool raw = false;
  /// Qwen3: leave the thinking block open (Ollama's "think").
  bool think = false;
  bool stream = false;
  std::optional<double> temperature;
  std::optional<int64_t> top_k;
  /// Tokens to generate at most (Ollama's num_predict, OpenAI's max_tokens).
  std::optional<int64_t> max_tokens;
  std::optional<uint64_t> seed;
  /// Texts that end the answer where they first appear, left out of it.
  std::vector<std::string> stop;
};

/// Reads a request body for `endpoint`. Keys the server does not use are ignored, as
/// Ollama does; a known key of the wrong type or out of range, a body that is not a
/// JSON object (or nests deeper than parse_json allows), or a missing prompt or
/// messages is a RequestError (400).
GenerationRequest parse_generation_request(Endpoint endpoint, std::string_view body);

/// A classifier's request (POST /api/classify): {"model": ..., "text": "..."}; the
/// model's name and the text, or a RequestError (400).
struct ClassifyRequest {
  std::string model;
  std::string text;
};
ClassifyRequest parse_classify_request(std::string_view body);

/// Its answer: the most likely label and every class's probability.
std::string classify_answer(std::string_view model, const std::vector<std::string>& labels,
                            const std::vector<double>& probabilities);

/// Why an answer ended: "stop" (a stop token or text) or "length" (max tokens, or the
/// context is full).
enum class FinishReason { kStop, kLength };
std::string_view finish_reason_name(FinishReason reason);

/// What the final message reports besides the text.
struct GenerationStats {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::chrono::nanoseconds prompt_duration{0};  // the prompt's forward pass
  std::chrono::nanoseconds eval_duration{0};    // the tokens after it
  std::chrono::nanoseconds total_duration{0};   // from the request to the end
  FinishReason finish = FinishReason::kStop;
};

/// Formats one request's answer in its API, streamed or whole. `id` and `created`
/// (Unix seconds) name the answer in OpenAI's objects.
class ReplyWriter {
 public:
  ReplyWriter(const GenerationRequest& request, std::string model, std::string id, int64_t created);

  /// The content type of the answer: NDJSON, server-sent events or JSON.
  std::string content_type() const;
  /// A streamed piece of the text (empty for an empty piece).
  std::string chunk(std::string_view text) const;
  /// What ends the answer: the last streamed messages, or the whole answer holding `text`.
  std::string finish(std::string_view text, const GenerationStats& stats) const;

 private:
  nlohmann::json ollama_message(std::string_view text, bool done) const;
  nlohmann::json openai_choice(std::string_view text, const std::optional<FinishReason>& finish) const;
  nlohmann::json openai_object(nlohmann::json choice) const;

  Endpoint endpoint_;
  bool stream_;
  std::string model_;
  std::string id_;
  int64_t created_;
};

/// An error body in the API's own shape: Ollama's {"error": "..."}, OpenAI's
/// {"error": {"message": "...", "type": ...}}.
std::string error_body(Api api, int status, std::string_view message);

/// RFC 3339 time in UTC with nanoseconds, as Ollama's "created_at".
std::string rfc3339_now();

}  // namespace llm::serve
