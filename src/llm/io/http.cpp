#include "llm/io/http.h"

#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include "llm/util/interrupt.h"

namespace llm {
namespace {

using Kind = HttpError::Kind;
using Clock = std::chrono::steady_clock;

// When the whole exchange must be over, and what it was given, for messages.
struct Deadline {
  Clock::time_point at;
  std::chrono::milliseconds timeout;

  explicit Deadline(std::chrono::milliseconds t) : at(Clock::now() + t), timeout(t) {}
  int remaining_ms() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at - Clock::now()).count();
    return static_cast<int>(std::clamp<int64_t>(left, 0, std::numeric_limits<int>::max()));
  }
};

// A socket closed when it goes out of scope.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// Waits until fd is ready for `events`; false when the deadline passes. A signal that
// asks the program to stop (StopOnSignal) ends the wait with an HttpError.
bool wait_for(int fd, short events, const Deadline& deadline, const std::string& where) {
  pollfd p{fd, events, 0};
  for (;;) {
    // Before each wait too: a signal that came between two waits interrupts neither.
    if (StopOnSignal::requested()) {
      throw HttpError(Kind::kStopped, fmt::format("{}: stopped by {}", where, StopOnSignal::signal_name()));
    }
    const int ready = ::poll(&p, 1, deadline.remaining_ms());
    if (ready >= 0 || errno != EINTR) return ready > 0;
  }
}

// A connected, blocking-free socket to the endpoint's first address that accepts.
void connect_to(Socket& socket, const HttpEndpoint& endpoint, const std::string& where, const Deadline& deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(endpoint.host.c_str(), std::to_string(endpoint.port).c_str(), &hints, &found);
      error != 0) {
    throw HttpError(Kind::kUnreachable, fmt::format("{}: unknown host ({})", where, ::gai_strerror(error)));
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
  std::string why = "no address";
  for (const auto* a = found; a != nullptr; a = a->ai_next) {
    Socket s;
    s.fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (s.fd < 0) continue;
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        why = std::strerror(errno);
        continue;
      }
      if (!wait_for(s.fd, POLLOUT, deadline, where)) {
        throw HttpError(Kind::kTimeout, fmt::format("{}: no connection within {} ms", where, deadline.timeout.count()));
      }
      int error = 0;
      socklen_t size = sizeof error;
      ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &size);
      if (error != 0) {
        why = std::strerror(error);
        continue;
      }
    }
    std::swap(socket.fd, s.fd);
    return;
  }
  throw HttpError(Kind::kUnreachable, fmt::format("nothing listens on {} ({})", where, why));
}

void send_all(const Socket& socket, const std::string& where, std::string_view data, const Deadline& deadline) {
  while (!data.empty()) {
    if (!wait_for(socket.fd, POLLOUT, deadline, where)) {
      throw HttpError(Kind::kTimeout,
                      fmt::format("{}: the request could not be sent within {} ms", where, deadline.timeout.count()));
    }
    const auto sent = ::send(socket.fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpError(Kind::kBroken, fmt::format("{}: sending failed ({})", where, std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(sent));
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Where a chunked body (RFC 9112 7.1) stands: the offset of the next chunk's size line,
// and the decoded bytes so far when asked to keep them.
struct ChunkWalk {
  size_t at = 0;
  bool done = false;
  bool bad = false;
};

// Walks the whole chunks of `body` from walk.at on, appending their bytes to `out`
// when it is given; stops at the first chunk not yet whole. Linear over all calls.
void walk_chunks(std::string_view body, ChunkWalk& walk, std::string* out) {
  while (!walk.done && !walk.bad) {
    const auto rest = body.substr(walk.at);
    const auto line_end = rest.find("\r\n");
    if (line_end == std::string_view::npos) return;
    size_t size = 0, i = 0;
    for (; i < line_end && std::isxdigit(static_cast<unsigned char>(rest[i])); ++i) {
      size = size * 16 + static_cast<size_t>(std::isdigit(static_cast<unsigned char>(rest[i]))
                                                 ? rest[i] - '0'
                                                 : std::tolower(static_cast<unsigned char>(rest[i])) - 'a' + 10);
      if (size > (size_t{1} << 40)) break;
    }
    if (i == 0 || size > (size_t{1} << 40)) {
      walk.bad = true;
      return;
    }
    if (size == 0) {
      walk.done = true;  // trailers, if any, are not read
      return;
    }
    if (rest.size() < line_end + 2 + size + 2) return;
    if (out) out->append(rest.substr(line_end + 2, size));
    walk.at += line_end + 2 + size + 2;
  }
}

// An answer's status line and the headers that frame its body.
struct Head {
  int status = 0;
  bool chunked = false;
  std::optional<size_t> length;
};

// The head of `raw` (up to its blank line at head_end); nullopt when it is not HTTP's.
std::optional<Head> parse_head(std::string_view head) {
  Head parsed;
  if (head.substr(0, 5) != "HTTP/" || head.find(' ') == std::string_view::npos) return std::nullopt;
  const auto status = head.substr(head.find(' ') + 1, 3);
  if (status.size() != 3 || !std::isdigit(static_cast<unsigned char>(status[0])) ||
      !std::isdigit(static_cast<unsigned char>(status[1])) || !std::isdigit(static_cast<unsigned char>(status[2]))) {
    return std::nullopt;
  }
  parsed.status = (status[0] - '0') * 100 + (status[1] - '0') * 10 + (status[2] - '0');
  for (size_t at = head.find("\r\n"); at != std::string_view::npos;) {
    const auto next = head.find("\r\n", at + 2);
    const auto line = head.substr(at + 2, next == std::string_view::npos ? std::string_view::npos : next - at - 2);
    at = next;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    if (iequals(line.substr(0, colon), "transfer-encoding")) parsed.chunked = value.find("chunked") != std::string_view::npos;
    if (iequals(line.substr(0, colon), "content-length")) {
      size_t n = 0;
      for (const char c : value) {
        if (!std::isdigit(static_cast<unsigned char>(c)) || n > (size_t{1} << 40)) break;
        n = n * 10 + static_cast<size_t>(c - '0');
      }
      parsed.length = n;
    }
  }
  return parsed;
}

// The bytes of an answer as they arrive, and whether it is whole: by its
// Content-Length or its last chunk, so that a server that keeps the connection open
// after a complete answer is not waited for; without either, at the close.
class Answer {
 public:
  void add(std::string_view bytes) {
    raw_.append(bytes);
    if (head_end_ == std::string::npos) {
      const auto found = raw_.find("\r\n\r\n", scanned_);
      scanned_ = raw_.size() < 3 ? 0 : raw_.size() - 3;
      if (found == std::string::npos) return;
      head_end_ = found;
      head_ = parse_head(std::string_view(raw_).substr(0, head_end_));
    }
    if (!head_) return;
    const auto body = std::string_view(raw_).substr(head_end_ + 4);
    if (head_->chunked) {
      walk_chunks(body, walk_, nullptr);
      whole_ = walk_.done;
    } else if (head_->length) {
      whole_ = body.size() >= *head_->length;
    }
  }
  bool whole() const { return whole_; }
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
  size_t scanned_ = 0;  // where the search for the blank line resumes
  size_t head_end_ = std::string::npos;
  std::optional<Head> head_;
  ChunkWalk walk_;
  bool whole_ = false;
};

// The answer, read until it is whole or the server closes the connection, within the
// deadline and at most `max_bytes`.
std::string receive_answer(const Socket& socket, const std::string& where, const Deadline& deadline,
                           size_t max_bytes) {
  Answer answer;
  char buffer[16384];
  while (!answer.whole()) {
    if (!wait_for(socket.fd, POLLIN, deadline, where)) {
      throw HttpError(Kind::kTimeout,
                      answer.raw().empty()
                          ? fmt::format("{}: no answer within {} ms", where, deadline.timeout.count())
                          : fmt::format("{}: the answer was not whole within {} ms ({} bytes came)", where,
                                        deadline.timeout.count(), answer.raw().size()));
    }
    const auto got = ::recv(socket.fd, buffer, sizeof buffer, 0);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpError(Kind::kBroken, fmt::format("{}: the connection broke ({})", where, std::strerror(errno)));
    }
    if (answer.raw().size() + static_cast<size_t>(got) > max_bytes) {
      throw HttpError(Kind::kBroken, fmt::format("{}: the answer is longer than {} bytes", where, max_bytes));
    }
    answer.add(std::string_view(buffer, static_cast<size_t>(got)));
  }
  return answer.raw();
}

}  // namespace

HttpResponse parse_http_response(const std::string& raw, const std::string& where) {
  const auto broken = [&](std::string_view why) {
    return HttpError(Kind::kBroken, fmt::format("{}: {}", where, why));
  };
  if (raw.empty()) throw broken("the server closed the connection without an answer");
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) throw broken("the answer ended inside its headers");
  const auto head = parse_head(std::string_view(raw).substr(0, head_end));
  if (!head) throw broken("not an HTTP answer");
  HttpResponse response;
  response.status = head->status;
  const auto body = std::string_view(raw).substr(head_end + 4);
  if (head->chunked) {
    ChunkWalk walk;
    walk_chunks(body, walk, &response.body);
    if (!walk.done) throw broken("the server closed the connection before the answer ended");
  } else if (head->length) {
    if (body.size() < *head->length) throw broken("the server closed the connection before the answer ended");
    response.body = std::string(body.substr(0, *head->length));
  } else {
    response.body = std::string(body);
  }
  return response;
}

std::string HttpEndpoint::url(const std::string& path) const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}{}", ipv6 ? "[" : "", host, ipv6 ? "]" : "", port, path);
}

HttpResponse http_post_json(const HttpEndpoint& endpoint, const std::string& path, const std::string& body,
                            std::chrono::milliseconds timeout, size_t max_answer_bytes) {
  const auto where = endpoint.url(path);
  const Deadline deadline(timeout);
  Socket socket;
  connect_to(socket, endpoint, where, deadline);
  const auto request = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
      "Content-Length: {}\r\nConnection: close\r\n\r\n",
      path, endpoint.host, endpoint.port, body.size());
  send_all(socket, where, request + body, deadline);
  return parse_http_response(receive_answer(socket, where, deadline, max_answer_bytes), where);
}

}  // namespace llm
