#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace llm {

/// Where an HTTP server listens.
struct HttpEndpoint {
  std::string host = "localhost";
  int port = 80;
  std::string url(const std::string& path = "") const;
};

/// A server's answer: the status code and the body (chunked transfer decoded).
struct HttpResponse {
  int status = 0;
  std::string body;
};

/// Why an HTTP exchange failed, for a caller that treats the kinds differently: no
/// server (connection refused, unknown host), a server that did not answer in time,
/// broke off or sent too much, or a signal that asked the program to stop
/// (StopOnSignal). The message names the endpoint.
struct HttpError : std::runtime_error {
  enum class Kind { kUnreachable, kTimeout, kBroken, kStopped };
  HttpError(Kind kind_, const std::string& message) : std::runtime_error(message), kind(kind_) {}
  Kind kind;
};

/// An HTTP/1.1 POST of `body` (Content-Type: application/json) to `path`, with
/// Connection: close, through cpp-httplib's client. The whole exchange, from the
/// connection to the last byte of the answer, takes at most `timeout` (a watchdog
/// thread stops it then, or at once when a signal asks the program to stop), and the
/// answer's body at most `max_answer_bytes` (the library bounds each header line).
/// Throws HttpError; any status code is returned, not thrown.
HttpResponse http_post_json(const HttpEndpoint& endpoint, const std::string& path, const std::string& body,
                            std::chrono::milliseconds timeout, size_t max_answer_bytes = size_t{16} << 20);

}  // namespace llm
