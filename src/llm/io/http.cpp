#include "llm/io/http.h"

#include <fmt/format.h>
#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "llm/util/interrupt.h"

namespace llm {
namespace {

using Kind = HttpError::Kind;
using Clock = std::chrono::steady_clock;

// Why a watchdog stopped an exchange: cpp-httplib bounds each read, and this bounds
// the whole of it and ends it at Ctrl-C, from a second thread (Client::stop shuts the
// socket down, which is what the library allows from another thread).
enum class Cut { kNone, kDeadline, kSignal };

class Watchdog {
 public:
  Watchdog(httplib::Client& client, std::chrono::milliseconds timeout)
      : thread_([this, &client, at = Clock::now() + timeout] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            if (StopOnSignal::requested()) cut_ = Cut::kSignal;
            if (cut_ == Cut::kNone && Clock::now() >= at) cut_ = Cut::kDeadline;
            if (cut_ != Cut::kNone) client.stop();  // again each turn: a socket still connecting has none to shut yet
            ended_.wait_for(lock, std::chrono::milliseconds(20));
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    ended_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  Cut cut() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cut_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
  Cut cut_ = Cut::kNone;
  std::thread thread_;
};

}  // namespace

std::string HttpEndpoint::url(const std::string& path) const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}{}", ipv6 ? "[" : "", host, ipv6 ? "]" : "", port, path);
}

HttpResponse http_post_json(const HttpEndpoint& endpoint, const std::string& path, const std::string& body,
                            std::chrono::milliseconds timeout, size_t max_answer_bytes) {
  const auto where = endpoint.url(path);
  httplib::Client client(endpoint.host, endpoint.port);
  // The library's own bounds come a second after the watchdog's, so that a deadline is
  // always the watchdog's cut and says so, never a read error that races it.
  const auto library_timeout = timeout + std::chrono::seconds(1);
  client.set_connection_timeout(library_timeout);
  client.set_read_timeout(library_timeout);
  client.set_write_timeout(library_timeout);
  client.set_keep_alive(false);

  HttpResponse answer;
  bool too_long = false;
  httplib::Request request;
  request.method = "POST";
  request.path = path;
  request.body = body;
  request.set_header("Content-Type", "application/json");
  request.set_header("Accept", "application/json");
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    if (answer.body.size() + length > max_answer_bytes) {
      too_long = true;
      return false;
    }
    answer.body.append(data, length);
    return true;
  };
  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  Cut cut = Cut::kNone;
  bool sent = false;
  {
    Watchdog watchdog(client, timeout);
    sent = client.send(request, response, error);
    cut = watchdog.cut();
  }
  if (cut == Cut::kSignal) throw HttpError(Kind::kStopped, fmt::format("{}: stopped by {}", where, StopOnSignal::signal_name()));
  if (too_long) throw HttpError(Kind::kBroken, fmt::format("{}: the answer is longer than {} bytes", where, max_answer_bytes));
  if (!sent && cut != Cut::kDeadline && error == httplib::Error::Connection) {
    throw HttpError(Kind::kUnreachable, fmt::format("nothing listens on {} (the connection was refused, or the host is unknown)", where));
  }
  if (!sent && (cut == Cut::kDeadline || error == httplib::Error::ConnectionTimeout)) {
    throw HttpError(Kind::kTimeout,
                    answer.body.empty() && response.status < 0
                        ? fmt::format("{}: no answer within {} ms", where, timeout.count())
                        : fmt::format("{}: the answer was not whole within {} ms ({} bytes came)", where, timeout.count(),
                                      answer.body.size()));
  }
  if (!sent) {
    throw HttpError(Kind::kBroken, fmt::format("{}: the server closed the connection before the answer ended ({})",
                                               where, httplib::to_string(error)));
  }
  answer.status = response.status;
  return answer;
}

}  // namespace llm
