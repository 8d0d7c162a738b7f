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
/// Throws HttpError when the server cannot be reached, does not answer in time or
/// breaks off, and llm::Error for an answer that is not Ollama's (a status other than
/// 200, a line that is not JSON, an "error" field).
std::string query_model(const std::string& prompt, const std::string& model = "llama3",
                        const HttpEndpoint& endpoint = {"localhost", 11434},
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// The reply in Ollama's answer to POST /api/chat: the "content" of every streamed
/// line's "message", joined. An llm::Error naming `where` for an answer that is not
/// Ollama's (a status other than 200, a line that is not JSON, an "error" field).
std::string chat_reply(const HttpResponse& response, const std::string& where);

/// Python's int(text) for a score: an optional sign and decimal digits (single
/// underscores between them allowed), surrounded by whitespace; nullopt otherwise
/// (the lesson's "Could not convert score").
std::optional<int64_t> parse_score(std::string_view text);

}  // namespace llm
