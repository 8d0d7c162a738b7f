#include "llm/serve/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "llm/util/error.h"
#include "llm/util/json.h"

namespace llm::serve {

namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& message) { throw RequestError{400, message}; }

void expect(bool ok, std::string_view key, std::string_view expected, const json& value) {
  if (!ok) refuse(fmt::format("'{}' must be {}, got {}", key, expected, json_excerpt(value)));
}

const json* find(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::string> string_at(const json& object, std::string_view key) {
  const auto* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  expect(value->is_string(), key, "a string", *value);
  return value->get<std::string>();
}

std::optional<bool> bool_at(const json& object, std::string_view key) {
  const auto* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  expect(value->is_boolean(), key, "true or false", *value);
  return value->get<bool>();
}

// An integer, written as one or as a number with no fraction (some clients send 40.0).
std::optional<int64_t> integer_at(const json& object, std::string_view key) {
  const auto* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) {
    expect(value->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), key,
           "an integer of at most 9223372036854775807", *value);
    return static_cast<int64_t>(value->get<uint64_t>());
  }
  if (value->is_number_integer()) return value->get<int64_t>();
  constexpr double kLimit = 9.2e18;
  expect(value->is_number_float() && std::nearbyint(value->get<double>()) == value->get<double>() &&
             std::fabs(value->get<double>()) < kLimit,
         key, "an integer", *value);
  return static_cast<int64_t>(value->get<double>());
}

std::optional<double> number_at(const json& object, std::string_view key) {
  const auto* value = find(object, key);
  if (value == nullptr) return std::nullopt;
  expect(value->is_number(), key, "a number", *value);
  return value->get<double>();
}

void read_temperature(const json& object, GenerationRequest& request) {
  request.temperature = number_at(object, "temperature");
  // Below 1e-30 logits / temperature overflows float32: such a temperature means greedy.
  constexpr double kMinTemperature = 1e-30;
  if (request.temperature && (!(*request.temperature >= 0.0) || !std::isfinite(*request.temperature) ||
                              (*request.temperature > 0.0 && *request.temperature < kMinTemperature))) {
    refuse(fmt::format("'temperature' must be 0 (greedy) or a finite number of at least {}, got {}", kMinTemperature,
                       *request.temperature));
  }
}

void read_top_k(const json& object, GenerationRequest& request) {
  request.top_k = integer_at(object, "top_k");
  if (request.top_k && *request.top_k < 0) refuse(fmt::format("'top_k' must be >= 0, got {}", *request.top_k));
}

void read_seed(const json& object, GenerationRequest& request) {
  if (const auto seed = integer_at(object, "seed")) request.seed = static_cast<uint64_t>(*seed);  // as torch.manual_seed
}

// "stop": one string or a list of them; empty strings stop nothing and are dropped.
void read_stop(const json& object, GenerationRequest& request) {
  const auto* value = find(object, "stop");
  if (value == nullptr) return;
  constexpr size_t kMaxStops = 16;
  if (value->is_string()) {
    request.stop = {value->get<std::string>()};
  } else {
    expect(value->is_array() && value->size() <= kMaxStops, "stop",
           fmt::format("a string or a list of at most {} strings", kMaxStops), *value);
    for (const auto& item : *value) {
      expect(item.is_string(), "stop", "a list of strings", item);
      request.stop.push_back(item.get<std::string>());
    }
  }
  request.stop.erase(std::remove(request.stop.begin(), request.stop.end(), std::string()), request.stop.end());
}

// A message's text: a string, or OpenAI's list of parts of which the text parts count.
std::string message_content(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  expect(content.is_array(), "content", "a string or a list of text parts", content);
  std::string text;
  for (const auto& part : content) {
    expect(part.is_object(), "content", "a list of text parts", part);
    const auto type = string_at(part, "type");
    if (type != "text") refuse(fmt::format("only text parts can be read, got a part of type {}", json_excerpt(part.value("type", json()))));
    text += string_at(part, "text").value_or("");
  }
  return text;
}

std::vector<ChatMessage> read_messages(const json& object) {
  const auto* value = find(object, "messages");
  if (value == nullptr) refuse("'messages' is missing; expected a list of {\"role\", \"content\"} objects");
  expect(value->is_array() && !value->empty(), "messages", "a list of at least one message", *value);
  std::vector<ChatMessage> messages;
  for (const auto& item : *value) {
    expect(item.is_object(), "messages", "a list of objects", item);
    auto role = string_at(item, "role");
    if (!role || (*role != "system" && *role != "user" && *role != "assistant")) {
      refuse(fmt::format("a message's 'role' must be \"system\", \"user\" or \"assistant\", got {}",
                         json_excerpt(item.value("role", json()))));
    }
    const auto* content = find(item, "content");
    messages.push_back({*role, content == nullptr ? std::string() : message_content(*content)});
  }
  return messages;
}

std::string read_prompt(const json& object) {
  const auto* value = find(object, "prompt");
  if (value == nullptr) refuse("'prompt' is missing; expected the text to continue");
  // OpenAI's completions also take a list of prompts; one answer per request here.
  if (value->is_array() && value->size() == 1 && (*value)[0].is_string()) return (*value)[0].get<std::string>();
  expect(value->is_string(), "prompt", "a string", *value);
  return value->get<std::string>();
}

void read_ollama(const json& body, GenerationRequest& request) {
  request.stream = bool_at(body, "stream").value_or(true);  // Ollama streams unless told not to
  request.think = bool_at(body, "think").value_or(false);
  if (request.endpoint == Endpoint::kOllamaChat) {
    request.messages = read_messages(body);
  } else {
    request.prompt = read_prompt(body);
    request.raw = bool_at(body, "raw").value_or(false);
    if (const auto system = string_at(body, "system")) request.messages.push_back({"system", *system});
    request.messages.push_back({"user", request.prompt});
  }
  const auto* options = find(body, "options");
  if (options == nullptr) return;
  expect(options->is_object(), "options", "an object", *options);
  read_temperature(*options, request);
  read_top_k(*options, request);
  read_seed(*options, request);
  read_stop(*options, request);
  // num_predict -1 (no limit) and -2 (fill the context) both run to the server's limit.
  if (const auto n = integer_at(*options, "num_predict"); n && *n >= 0) request.max_tokens = n;
}

void read_openai(const json& body, GenerationRequest& request) {
  request.stream = bool_at(body, "stream").value_or(false);
  if (request.endpoint == Endpoint::kOpenAiChat) {
    request.messages = read_messages(body);
  } else {
    request.prompt = read_prompt(body);
    request.raw = true;  // a completion continues its text as it is
  }
  if (const auto n = integer_at(body, "n"); n && *n != 1) refuse(fmt::format("'n' must be 1, got {}", *n));
  read_temperature(body, request);
  read_top_k(body, request);
  read_seed(body, request);
  read_stop(body, request);
  request.max_tokens = integer_at(body, "max_completion_tokens");
  if (!request.max_tokens) request.max_tokens = integer_at(body, "max_tokens");
  if (request.max_tokens && *request.max_tokens < 1) {
    refuse(fmt::format("'max_tokens' must be at least 1, got {}", *request.max_tokens));
  }
}

// A request body as a JSON object, or a RequestError saying why it is not one.
json parse_body(std::string_view body) {
  try {
    return parse_json_object(body, "request", "body");
  } catch (const Error& e) {
    refuse(e.what());
  }
}

std::string json_line(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

Api api_of(Endpoint endpoint) {
  return endpoint == Endpoint::kOllamaGenerate || endpoint == Endpoint::kOllamaChat ? Api::kOllama : Api::kOpenAi;
}

bool is_chat(Endpoint endpoint) { return endpoint == Endpoint::kOllamaChat || endpoint == Endpoint::kOpenAiChat; }

GenerationRequest parse_generation_request(Endpoint endpoint, std::string_view body) {
  const auto parsed = parse_body(body);
  GenerationRequest request;
  request.endpoint = endpoint;
  request.model = string_at(parsed, "model").value_or("");
  if (api_of(endpoint) == Api::kOllama) {
    read_ollama(parsed, request);
  } else {
    read_openai(parsed, request);
  }
  if (request.max_tokens && *request.max_tokens < 0) refuse("max tokens must be >= 0");
  return request;
}

ClassifyRequest parse_classify_request(std::string_view body) {
  const auto parsed = parse_body(body);
  ClassifyRequest request;
  request.model = string_at(parsed, "model").value_or("");
  auto text = string_at(parsed, "text");
  if (!text) refuse("'text' is missing; expected the text to classify");
  request.text = std::move(*text);
  return request;
}

std::string classify_answer(std::string_view model, const std::vector<std::string>& labels,
                            const std::vector<double>& probabilities) {
  json classes = json::object();
  size_t best = 0;
  for (size_t c = 0; c < labels.size() && c < probabilities.size(); ++c) {
    classes[labels[c]] = probabilities[c];
    if (probabilities[c] > probabilities[best]) best = c;
  }
  return json_line({{"model", std::string(model)}, {"label", labels.at(best)}, {"probabilities", classes}}) + "\n";
}

std::string_view finish_reason_name(FinishReason reason) { return reason == FinishReason::kStop ? "stop" : "length"; }

ReplyWriter::ReplyWriter(const GenerationRequest& request, std::string model, std::string id, int64_t created)
    : endpoint_(request.endpoint), stream_(request.stream), model_(std::move(model)), id_(std::move(id)), created_(created) {}

std::string ReplyWriter::content_type() const {
  if (!stream_) return "application/json";
  return api_of(endpoint_) == Api::kOllama ? "application/x-ndjson" : "text/event-stream";
}

json ReplyWriter::ollama_message(std::string_view text, bool done) const {
  json message = {{"model", model_}, {"created_at", rfc3339_now()}};
  if (endpoint_ == Endpoint::kOllamaChat) {
    message["message"] = {{"role", "assistant"}, {"content", std::string(text)}};
  } else {
    message["response"] = std::string(text);
  }
  message["done"] = done;
  return message;
}

json ReplyWriter::openai_choice(std::string_view text, const std::optional<FinishReason>& finish) const {
  json choice = {{"index", 0}};
  if (endpoint_ == Endpoint::kOpenAiCompletions) {
    choice["text"] = std::string(text);
    choice["logprobs"] = nullptr;
  } else if (stream_) {
    choice["delta"] = finish && text.empty() ? json::object() : json{{"role", "assistant"}, {"content", std::string(text)}};
  } else {
    choice["message"] = {{"role", "assistant"}, {"content", std::string(text)}};
  }
  choice["finish_reason"] = finish ? json(std::string(finish_reason_name(*finish))) : json();
  return choice;
}

json ReplyWriter::openai_object(json choice) const {
  const bool chat = endpoint_ == Endpoint::kOpenAiChat;
  return {{"id", id_},
          {"object", chat ? (stream_ ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
          {"created", created_},
          {"model", model_},
          {"choices", json::array({std::move(choice)})}};
}

std::string ReplyWriter::chunk(std::string_view text) const {
  if (text.empty()) return {};
  if (api_of(endpoint_) == Api::kOllama) return json_line(ollama_message(text, false)) + "\n";
  return "data: " + json_line(openai_object(openai_choice(text, std::nullopt))) + "\n\n";
}

std::string ReplyWriter::finish(std::string_view text, const GenerationStats& stats) const {
  if (api_of(endpoint_) == Api::kOllama) {
    auto message = ollama_message(stream_ ? std::string_view() : text, true);
    message["done_reason"] = std::string(finish_reason_name(stats.finish));
    message["total_duration"] = stats.total_duration.count();
    message["load_duration"] = 0;
    message["prompt_eval_count"] = stats.prompt_tokens;
    message["prompt_eval_duration"] = stats.prompt_duration.count();
    message["eval_count"] = stats.completion_tokens;
    message["eval_duration"] = stats.eval_duration.count();
    return json_line(message) + "\n";
  }
  auto object = openai_object(openai_choice(stream_ ? std::string_view() : text, stats.finish));
  object["usage"] = {{"prompt_tokens", stats.prompt_tokens},
                     {"completion_tokens", stats.completion_tokens},
                     {"total_tokens", stats.prompt_tokens + stats.completion_tokens}};
  if (!stream_) return json_line(object) + "\n";
  return "data: " + json_line(object) + "\n\ndata: [DONE]\n\n";
}

std::string error_body(Api api, int status, std::string_view message) {
  if (api == Api::kOllama) return json_line({{"error", std::string(message)}}) + "\n";
  const char* type = status == 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return json_line({{"error", {{"message", std::string(message)}, {"type", type}, {"param", nullptr}, {"code", status}}}}) + "\n";
}

std::string rfc3339_now() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now);
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now - seconds).count();
  const std::time_t t = seconds.count();
  std::tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, nanos);
}

}  // namespace llm::serve
