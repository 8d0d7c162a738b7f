#include "llm/io/http.h"

#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace llm {
namespace {

using Kind = HttpError::Kind;

// A socket closed when it goes out of scope.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// Waits until fd is ready for `events`; false on timeout.
bool wait_for(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

// A connected, blocking-free socket to the endpoint's first address that accepts.
void connect_to(Socket& socket, const HttpEndpoint& endpoint, const std::string& where,
                std::chrono::milliseconds timeout) {
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
      if (!wait_for(s.fd, POLLOUT, timeout)) {
        throw HttpError(Kind::kTimeout, fmt::format("{}: no connection within {} ms", where, timeout.count()));
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

void send_all(const Socket& socket, const std::string& where, std::string_view data,
              std::chrono::milliseconds timeout) {
  while (!data.empty()) {
    if (!wait_for(socket.fd, POLLOUT, timeout)) {
      throw HttpError(Kind::kTimeout, fmt::format("{}: the request could not be sent within {} ms", where, timeout.count()));
    }
    const auto sent = ::send(socket.fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpError(Kind::kBroken, fmt::format("{}: sending failed ({})", where, std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(sent));
  }
}

// Everything the server sends until it closes the connection.
std::string receive_all(const Socket& socket, const std::string& where, std::chrono::milliseconds timeout) {
  std::string out;
  char buffer[16384];
  for (;;) {
    if (!wait_for(socket.fd, POLLIN, timeout)) {
      throw HttpError(Kind::kTimeout, fmt::format("{}: no answer within {} ms", where, timeout.count()));
    }
    const auto got = ::recv(socket.fd, buffer, sizeof buffer, 0);
    if (got == 0) return out;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpError(Kind::kBroken, fmt::format("{}: the connection broke ({})", where, std::strerror(errno)));
    }
    out.append(buffer, static_cast<size_t>(got));
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// A chunked body (RFC 9112 7.1) decoded; nullopt when it ends before its last chunk.
std::optional<std::string> dechunk(std::string_view body) {
  std::string out;
  for (;;) {
    const auto line_end = body.find("\r\n");
    if (line_end == std::string_view::npos) return std::nullopt;
    size_t size = 0;
    const auto line = body.substr(0, line_end);
    size_t i = 0;
    for (; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i) {
      size = size * 16 + static_cast<size_t>(std::isdigit(static_cast<unsigned char>(line[i]))
                                                 ? line[i] - '0'
                                                 : std::tolower(static_cast<unsigned char>(line[i])) - 'a' + 10);
      if (size > (size_t{1} << 40)) return std::nullopt;
    }
    if (i == 0) return std::nullopt;
    body.remove_prefix(line_end + 2);
    if (size == 0) return out;
    if (body.size() < size + 2) return std::nullopt;
    out.append(body.substr(0, size));
    body.remove_prefix(size + 2);
  }
}

}  // namespace

HttpResponse parse_http_response(const std::string& raw, const std::string& where) {
  const auto broken = [&](std::string_view why) {
    return HttpError(Kind::kBroken, fmt::format("{}: {}", where, why));
  };
  if (raw.empty()) throw broken("the server closed the connection without an answer");
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) throw broken("the answer ended inside its headers");
  const std::string_view head(raw.data(), head_end);
  HttpResponse response;
  if (head.substr(0, 5) != "HTTP/" || head.find(' ') == std::string_view::npos) throw broken("not an HTTP answer");
  const auto status = head.substr(head.find(' ') + 1, 3);
  if (status.size() != 3 || !std::isdigit(static_cast<unsigned char>(status[0])) ||
      !std::isdigit(static_cast<unsigned char>(status[1])) || !std::isdigit(static_cast<unsigned char>(status[2]))) {
    throw broken("not an HTTP status line");
  }
  response.status = (status[0] - '0') * 100 + (status[1] - '0') * 10 + (status[2] - '0');
  bool chunked = false;
  std::optional<size_t> length;
  for (size_t at = head.find("\r\n"); at != std::string_view::npos;) {
    const auto next = head.find("\r\n", at + 2);
    const auto line = head.substr(at + 2, next == std::string_view::npos ? std::string_view::npos : next - at - 2);
    at = next;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    if (iequals(line.substr(0, colon), "transfer-encoding")) chunked = value.find("chunked") != std::string_view::npos;
    if (iequals(line.substr(0, colon), "content-length")) {
      size_t n = 0;
      for (const char c : value) {
        if (!std::isdigit(static_cast<unsigned char>(c)) || n > (size_t{1} << 40)) break;
        n = n * 10 + static_cast<size_t>(c - '0');
      }
      length = n;
    }
  }
  const std::string_view body(raw.data() + head_end + 4, raw.size() - head_end - 4);
  if (chunked) {
    auto decoded = dechunk(body);
    if (!decoded) throw broken("the server closed the connection before the answer ended");
    response.body = std::move(*decoded);
  } else if (length) {
    if (body.size() < *length) throw broken("the server closed the connection before the answer ended");
    response.body = std::string(body.substr(0, *length));
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
                            std::chrono::milliseconds timeout) {
  const auto where = endpoint.url(path);
  Socket socket;
  connect_to(socket, endpoint, where, timeout);
  const auto request = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
      "Content-Length: {}\r\nConnection: close\r\n\r\n",
      path, endpoint.host, endpoint.port, body.size());
  send_all(socket, where, request + body, timeout);
  return parse_http_response(receive_all(socket, where, timeout), where);
}

}  // namespace llm
