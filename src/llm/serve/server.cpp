#include "llm/serve/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>

#include "llm/serve/api.h"
#include "llm/serve/pages.h"
#include "llm/serve/text_stream.h"
#include "llm/util/error.h"
#include "llm/util/utf8.h"

namespace llm::serve {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// How long a provider waits for tokens before it looks at its client again, and how
// long a whole answer may go without a byte before a space keeps its client's
// connection checked (JSON allows leading whitespace).
constexpr std::chrono::milliseconds kPoll{200};
constexpr std::chrono::seconds kHeartbeat{1};

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Api api_of_path(const std::string& path) { return path.rfind("/v1/", 0) == 0 ? Api::kOpenAi : Api::kOllama; }

void send_error(httplib::Response& res, Api api, int status, std::string_view message) {
  res.status = status;
  res.set_content(error_body(api, status, message), "application/json");
}

// One answer on its way to its client: the job, the text so far and how it is written.
struct Answer {
  Answer(std::shared_ptr<Job> job, const BpeTokenizer& tokenizer, const GenerationRequest& request, ReplyWriter writer)
      : job(std::move(job)), text(tokenizer, request.stop), writer(std::move(writer)), stream(request.stream) {}

  // What to send now: the pieces that came, or, once the answer is over, its end.
  std::string next(bool& over) {
    auto taken = job->take(kPoll);
    std::string out;
    for (const auto id : taken.tokens) {
      ++tokens;
      const auto piece = text.add(id);
      if (stream) out += writer.chunk(piece);
      if (text.stopped()) break;
    }
    if (text.stopped()) job->cancel();
    over = taken.finished || text.stopped();
    if (!over) return out;
    if (!taken.error.empty()) return out + error_body(api_of(endpoint), 500, taken.error);
    const auto rest = text.flush();
    if (stream) out += writer.chunk(rest);
    stats.completion_tokens = tokens;
    stats.finish = taken.length && !text.stopped() ? FinishReason::kLength : FinishReason::kStop;
    stats.prompt_duration = job->prompt_duration();
    stats.eval_duration = job->eval_duration();
    stats.total_duration = Clock::now() - started;
    return out + writer.finish(text.text(), stats);
  }

  std::shared_ptr<Job> job;
  TextStream text;
  ReplyWriter writer;
  bool stream = false;
  Endpoint endpoint = Endpoint::kOllamaGenerate;
  GenerationStats stats;
  int64_t tokens = 0;
  Clock::time_point started = Clock::now();
  Clock::time_point last_write = Clock::now();
};

}  // namespace

struct Server::Impl {
  Impl(ServedModel model, const BpeTokenizer& tokenizer, PromptFormat format, ServerOptions options)
      : model(model), tokenizer(tokenizer), format(std::move(format)), options(std::move(options)) {}

  ServedModel model;
  const BpeTokenizer& tokenizer;
  PromptFormat format;
  ServerOptions options;
  httplib::Server http;
  std::atomic<int64_t> answers{0};

  void routes();
  void generation_routes();
  void classifier_routes();
  void classify(const httplib::Request& req, httplib::Response& res);
  json info() const;
  void error_handlers();
  void generation(Endpoint endpoint, const httplib::Request& req, httplib::Response& res);
  std::vector<int64_t> prompt_ids(const GenerationRequest& request) const;
  Sampling sampling(const GenerationRequest& request) const;
  json model_list_entry() const;
};

std::vector<int64_t> Server::Impl::prompt_ids(const GenerationRequest& request) const {
  std::vector<int64_t> ids;
  try {
    ids = request.raw ? PromptFormat::raw_ids(tokenizer, request.prompt)
                      : format.chat_ids(tokenizer, request.messages, request.think);
  } catch (const Error& e) {
    throw RequestError{400, e.what()};
  }
  if (ids.empty()) throw RequestError{400, "the prompt is empty; expected some text to continue"};
  const auto context = model.generator->context_length();
  if (static_cast<int64_t>(ids.size()) >= context) {
    throw RequestError{400, fmt::format("the prompt is {} tokens; the model's context holds {}, and an answer needs "
                                        "room for at least one more", ids.size(), context)};
  }
  return ids;
}

Sampling Server::Impl::sampling(const GenerationRequest& request) const {
  Sampling s;
  s.temperature = request.temperature.value_or(options.default_temperature);
  s.top_k = request.top_k.value_or(options.default_top_k);
  s.max_tokens = request.max_tokens.value_or(options.default_max_tokens);
  if (s.max_tokens > options.max_tokens_limit) {
    throw RequestError{400, fmt::format("max tokens {} is more than this server allows ({}, --max-tokens-limit)",
                                        s.max_tokens, options.max_tokens_limit)};
  }
  s.seed = request.seed;
  return s;
}

void Server::Impl::generation(Endpoint endpoint, const httplib::Request& req, httplib::Response& res) {
  const auto api = api_of(endpoint);
  if (model.generator == nullptr) {
    return send_error(res, api, 400, fmt::format("'{}' is a classifier: POST /api/classify {{\"text\": ...}}", options.model_name));
  }
  std::shared_ptr<Answer> answer;
  try {
    const auto request = parse_generation_request(endpoint, req.body);
    if (!request.model.empty() && request.model != options.model_name) {
      throw RequestError{404, fmt::format("model '{}' not found; this server has '{}'", printable(shortened(request.model)),
                                          options.model_name)};
    }
    auto job = std::make_shared<Job>(prompt_ids(request), sampling(request), format.stop_ids(tokenizer));
    const auto prompt_tokens = static_cast<int64_t>(job->prompt().size());
    const auto id = fmt::format("{}-{}", endpoint == Endpoint::kOpenAiChat ? "chatcmpl" : "cmpl", ++answers);
    answer = std::make_shared<Answer>(job, tokenizer, request, ReplyWriter(request, options.model_name, id, unix_seconds()));
    answer->endpoint = endpoint;
    answer->stats.prompt_tokens = prompt_tokens;
    model.generator->submit(job);
  } catch (const RequestError& e) {
    return send_error(res, api, e.status, e.message);
  } catch (const QueueFull& e) {
    return send_error(res, api, 429, fmt::format("the server is busy: {} requests already wait; try again later", e.limit));
  }
  const auto content_type = answer->writer.content_type();
  res.set_chunked_content_provider(
      content_type,
      [answer](size_t, httplib::DataSink& sink) {
        bool over = false;
        auto out = answer->next(over);
        // A whole answer sends nothing until its end; a space now and then notices a
        // client that went away, so its job ends instead of running on.
        if (out.empty() && !over && !answer->stream && Clock::now() - answer->last_write >= kHeartbeat) out = " ";
        if (!out.empty()) {
          if (!sink.write(out.data(), out.size())) {
            answer->job->cancel();
            return false;
          }
          answer->last_write = Clock::now();
        }
        if (over) sink.done();
        return true;
      },
      [answer](bool) { answer->job->cancel(); });  // a client gone, or the server stopping
  if (content_type == "text/event-stream") res.set_header("Cache-Control", "no-cache");
}

json Server::Impl::model_list_entry() const {
  return {{"name", options.model_name},
          {"model", options.model_name},
          {"modified_at", rfc3339_now()},
          {"size", 0},
          {"digest", ""},
          {"details", {{"format", "libtorch-llm"}, {"family", options.family}, {"families", {options.family}}}}};
}

json Server::Impl::info() const {
  json about = {{"model", options.model_name}, {"family", options.family}};
  if (model.classifier != nullptr) {
    about["kind"] = "classifier";
    about["labels"] = model.classifier->labels();
    return about;
  }
  const auto status = model.generator->status();
  about["kind"] = "generator";
  about["chat_format"] = std::string(format.name());
  about["context_length"] = model.generator->context_length();
  about["max_tokens"] = options.default_max_tokens;
  about["temperature"] = options.default_temperature;
  about["top_k"] = options.default_top_k;
  about["busy"] = status.busy;
  about["waiting"] = status.waiting;
  about["answers"] = status.answers;
  about["tokens_generated"] = status.tokens;
  return about;
}

void Server::Impl::classify(const httplib::Request& req, httplib::Response& res) {
  try {
    const auto request = parse_classify_request(req.body);
    if (!request.model.empty() && request.model != options.model_name) {
      throw RequestError{404, fmt::format("model '{}' not found; this server has '{}'", printable(shortened(request.model)),
                                          options.model_name)};
    }
    std::vector<double> probabilities;
    try {
      probabilities = model.classifier->probabilities(request.text);
    } catch (const Error& e) {
      throw RequestError{400, e.what()};
    }
    res.set_content(classify_answer(options.model_name, model.classifier->labels(), probabilities), "application/json");
  } catch (const RequestError& e) {
    send_error(res, Api::kOllama, e.status, e.message);
  }
}

void Server::Impl::generation_routes() {
  const auto post = [this](const char* path, Endpoint endpoint) {
    http.Post(path, [this, endpoint](const httplib::Request& req, httplib::Response& res) { generation(endpoint, req, res); });
  };
  post("/api/generate", Endpoint::kOllamaGenerate);
  post("/api/chat", Endpoint::kOllamaChat);
  post("/v1/completions", Endpoint::kOpenAiCompletions);
  post("/v1/chat/completions", Endpoint::kOpenAiChat);
}

void Server::Impl::classifier_routes() {
  http.Post("/api/classify", [this](const httplib::Request& req, httplib::Response& res) {
    if (model.classifier == nullptr) {
      return send_error(res, Api::kOllama, 400, fmt::format("'{}' generates text: POST /api/generate or /api/chat",
                                                            options.model_name));
    }
    classify(req, res);
  });
}

void Server::Impl::routes() {
  const auto page = model.classifier != nullptr ? kClassifyPage : kChatPage;
  http.Get("/", [page](const httplib::Request&, httplib::Response& res) {
    res.set_content(page.data(), page.size(), "text/html; charset=utf-8");
  });
  http.Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"version":"0.1.0"})", "application/json");
  });
  http.Get("/api/tags", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"models", {model_list_entry()}}}.dump(), "application/json");
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    const json model = {{"id", options.model_name}, {"object", "model"}, {"created", unix_seconds()}, {"owned_by", "libtorch-llm"}};
    res.set_content(json{{"object", "list"}, {"data", {model}}}.dump(), "application/json");
  });
  // What the pages show and send back, and what the worker is doing.
  http.Get("/api/info", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(info().dump(), "application/json");
  });
  generation_routes();
  classifier_routes();
  error_handlers();
}

void Server::Impl::error_handlers() {
  // httplib's own refusals (no such path, a body too long, a bad request line) get a JSON body too.
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const auto api = api_of_path(req.path);
    const auto message = res.status == 404   ? fmt::format("no endpoint {} {}", printable(shortened(req.method)),
                                                         printable(shortened(req.path)))
                         : res.status == 413 ? std::string("the request body is longer than this server allows (--max-body-bytes)")
                                             : fmt::format("request refused (HTTP {})", res.status);
    send_error(res, api, res.status, message);
  });
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
    std::string message = "internal error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
    }
    send_error(res, api_of_path(req.path), 500, message);
  });
}

Server::Server(ServedModel model, const BpeTokenizer& tokenizer, PromptFormat format, ServerOptions options)
    : impl_(std::make_unique<Impl>(model, tokenizer, std::move(format), std::move(options))) {
  auto& http = impl_->http;
  const auto connections = impl_->options.connections;
  http.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  http.set_payload_max_length(impl_->options.max_body_bytes);
  http.set_read_timeout(std::chrono::seconds(10));
  http.set_write_timeout(std::chrono::seconds(10));
  http.set_keep_alive_timeout(5);
  impl_->routes();
}

Server::~Server() = default;

int Server::bind() {
  const auto& o = impl_->options;
  const int port = o.port == 0 ? impl_->http.bind_to_any_port(o.host) : (impl_->http.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) {
    throw Error(fmt::format("cannot listen on {}:{}: is another program using the port, or is the address not this "
                            "machine's?", o.host, o.port));
  }
  return port;
}

void Server::listen() { impl_->http.listen_after_bind(); }

void Server::stop() { impl_->http.stop(); }

}  // namespace llm::serve
