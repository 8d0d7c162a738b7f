#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "llm/io/http.h"

namespace llm {

/// Lesson 7.8's query_model: the prompt as one user message to Ollama's REST API
/// (POST /api/chat) with the lesson's options (seed 123, temperature 0, num_ctx
/// 2048), and the reply: the "content" of every streamed line's "message", joined.
/// Throws HttpError when the server cannot be reached, does not answer within
/// `timeout` (the whole answer), breaks off or answers with lines that are not
/// Ollama's, and llm::Error when Ollama refuses (a status other than 200, an "error"
/// field).
std::string query_model(const std::string& prompt, const std::string& model = "llama3",
                        const HttpEndpoint& endpoint = {"localhost", 11434},
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// The reply in Ollama's answer to POST /api/chat: the "content" of every streamed
/// line's "message", joined. Naming `where`: an HttpError (kBroken) for a line that is
/// not Ollama's, an llm::Error for a refusal (a status other than 200, an "error").
std::string chat_reply(const HttpResponse& response, const std::string& where);

/// Python's int(text) for a score: an optional sign and decimal digits (single
/// underscores between them allowed), surrounded by whitespace; nullopt otherwise
/// (the lesson's "Could not convert score").
std::optional<int64_t> parse_score(std::string_view text);

}  // namespace llm
