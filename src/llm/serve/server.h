#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "llm/serve/engine.h"
#include "llm/serve/prompt_format.h"
#include "llm/text/bpe_tokenizer.h"

namespace llm::serve {

/// What the server says about its model and what it allows a request.
struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 11434;
  /// The model's name in /api/tags and /v1/models; a request naming another is refused (404).
  std::string model_name = "libtorch-llm";
  std::string family = "gpt2";
  /// A request body longer than this is refused (413).
  size_t max_body_bytes = size_t{1} << 20;
  /// Tokens an answer gets when its request does not say, and the most it may ask for.
  int64_t default_max_tokens = 256;
  int64_t max_tokens_limit = 4096;
  /// Sampling for requests that do not say: greedy, as the lessons generate.
  double default_temperature = 0.0;
  int64_t default_top_k = 0;
  /// Connections served at once (each streaming answer holds one).
  size_t connections = 24;
};

/// The HTTP side: Ollama's and OpenAI's endpoints and the chat page, on cpp-httplib;
/// for a classifier, POST /api/classify and a page that classifies a text.
/// Requests are read and checked here, their prompts encoded in the model's chat
/// format, and the answers written as their tokens come from the Engine.
class Server {
 public:
  /// `model` holds a generator (served with `format`) or a classifier.
  Server(ServedModel model, const BpeTokenizer& tokenizer, PromptFormat format, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds host:port (port 0: any free port); an llm::Error naming them when it cannot.
  /// Returns the port.
  int bind();
  /// Serves until stop() (from any thread, or a signal handler's watcher).
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm::serve
