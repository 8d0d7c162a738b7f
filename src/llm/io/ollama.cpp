#include "llm/io/ollama.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/json.h"
#include "llm/util/utf8.h"

namespace llm {

std::string query_model(const std::string& prompt, const std::string& model, const HttpEndpoint& endpoint,
                        std::chrono::milliseconds timeout) {
  const nlohmann::json request = {
      {"model", model},
      {"messages", nlohmann::json::array({{{"role", "user"}, {"content", prompt}}})},
      {"options", {{"seed", 123}, {"temperature", 0}, {"num_ctx", 2048}}}};
  return chat_reply(http_post_json(endpoint, "/api/chat", request.dump(), timeout), endpoint.url("/api/chat"));
}

std::string chat_reply(const HttpResponse& response, const std::string& where) {
  if (response.status != 200) {
    const auto first_line = response.body.substr(0, std::min(response.body.find('\n'), size_t{200}));
    throw Error(fmt::format("{} answered HTTP {}: {}", where, response.status, first_line));
  }
  std::string reply;
  size_t at = 0;
  for (size_t line = 1; at < response.body.size(); ++line) {
    auto end = response.body.find('\n', at);
    if (end == std::string::npos) end = response.body.size();
    const std::string_view text(response.body.data() + at, end - at);
    at = end + 1;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json json;
    try {
      json = parse_json(text, fmt::format("line {} of the answer from", line), where);
    } catch (const Error& e) {  // a broken answer costs its question, not the run
      throw HttpError(HttpError::Kind::kBroken, e.what());
    }
    if (json.is_object() && json.contains("error")) {
      const auto& error = json["error"];
      throw Error(fmt::format("{}: Ollama says: {}", where,
                              error.is_string() ? shortened(error.get<std::string>(), 200) : json_excerpt(error)));
    }
    if (!json.is_object() || !json.contains("message")) continue;
    const auto& message = json["message"];
    if (!message.is_object() || !message.contains("content") || !message["content"].is_string()) {
      throw HttpError(HttpError::Kind::kBroken,
                      fmt::format("{}: line {} has a \"message\" without a string \"content\"", where, line));
    }
    reply += message["content"].get<std::string>();
  }
  return reply;
}

std::optional<int64_t> parse_score(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F); };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front())) ||
      !std::isdigit(static_cast<unsigned char>(text.back()))) {
    return std::nullopt;
  }
  int64_t value = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_') {
      if (text[i - 1] == '_') return std::nullopt;  // one underscore between digits
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;  // no score is that large
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

}  // namespace llm
