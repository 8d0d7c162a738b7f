#include "llm/train/rendezvous_store.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <thread>

namespace llm {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kMaxWaitKeys = 1024;
constexpr size_t kMaxClients = 1024;
constexpr size_t kMaxReplyBytes = StoreTable::kMaxStoreBytes;

void put_u32(std::string& out, size_t n) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
}

uint32_t get_u32(std::string_view bytes, size_t at) {
  uint32_t n = 0;
  for (int i = 3; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(bytes[at + i]);
  return n;
}

// Whether `op` takes `fields` fields.
bool takes(StoreOp op, size_t fields) {
  switch (op) {
    case StoreOp::kSet:
    case StoreOp::kAdd:
      return fields == 2;
    case StoreOp::kGet:
    case StoreOp::kDeleteKey:
      return fields == 1;
    case StoreOp::kCompareSet:
      return fields == 3;
    case StoreOp::kCheck:
    case StoreOp::kWait:
      return fields >= 1 && fields <= kMaxWaitKeys;
    case StoreOp::kNumKeys:
      return fields == 0;
  }
  return false;
}

// `text` as a whole number (decimal digits after an optional '-'), or nullopt.
std::optional<int64_t> whole_number(const std::string& text) {
  int64_t n = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

// The addresses `host` resolves to for a stream socket on `port`.
std::unique_ptr<addrinfo, void (*)(addrinfo*)> resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int code = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); code != 0) {
    throw Error(fmt::format("cannot resolve '{}' ({})", host, ::gai_strerror(code)));
  }
  return {found, ::freeaddrinfo};
}

// `a`'s address with `port` in place of the one it was resolved with.
sockaddr_storage with_port(const addrinfo* a, uint16_t port) {
  sockaddr_storage address{};
  std::memcpy(&address, a->ai_addr, std::min<size_t>(a->ai_addrlen, sizeof(address)));
  (a->ai_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(address).sin6_port
                            : reinterpret_cast<sockaddr_in&>(address).sin_port) = htons(port);
  return address;
}

uint16_t bound_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(address).sin6_port
                                             : reinterpret_cast<sockaddr_in&>(address).sin_port);
}

// Listening sockets on each address of `host` (an IPv6 one for IPv6 only, so that
// "::1" does not also take IPv4's addresses). An address this machine lacks is left
// out; a port in use is an error.
std::vector<Socket> listen_on(const std::string& host, uint16_t& port) {
  std::vector<Socket> listeners;
  int last_error = 0;
  const auto addresses = resolve(host, port);
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
    if (!s.open()) continue;
    const int yes = 1;
    ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (a->ai_family == AF_INET6) ::setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes));
    const auto address = with_port(a, port);  // after port 0, the port the first address got
    if (::bind(s.fd(), reinterpret_cast<const sockaddr*>(&address), a->ai_addrlen) != 0 ||
        ::listen(s.fd(), 128) != 0) {
      last_error = errno;
      if (last_error == EADDRINUSE) throw StorePortInUse(fmt::format("port {} is in use", port));
      continue;
    }
    port = bound_port(s.fd());
    listeners.push_back(std::move(s));
  }
  if (listeners.empty()) {
    throw Error(fmt::format("cannot listen on {} ({})", host, last_error ? std::strerror(last_error) : "no address"));
  }
  return listeners;
}

milliseconds left_until(Clock::time_point deadline) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

// Waits until `fd` is ready for `events` or the deadline passes (false).
bool ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_until(deadline).count(), 1 << 30)));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw Error(fmt::format("poll failed ({})", std::strerror(errno)));
  }
}

// One connection attempt to each address of host:port, each bounded by the deadline.
Socket try_connect(const std::string& host, uint16_t port, Clock::time_point deadline, int& last_error) {
  const auto addresses = resolve(host, port);
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
    if (!s.open()) continue;
    if (::connect(s.fd(), a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        last_error = errno;
        continue;
      }
      int error = 0;
      socklen_t length = sizeof(error);
      if (!ready(s.fd(), POLLOUT, deadline)) {
        last_error = ETIMEDOUT;
        continue;
      }
      ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) {
        last_error = error;
        continue;
      }
    }
    return s;
  }
  return {};
}

// Sends all of `bytes`; false when the deadline passes first.
bool send_all(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    if (!ready(fd, POLLOUT, deadline)) return false;
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) throw Error(fmt::format("the rendezvous store broke off ({})", std::strerror(errno)));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads exactly `size` bytes onto `out`; false when the deadline passes first.
bool recv_exact(int fd, size_t size, std::string& out, Clock::time_point deadline) {
  char buffer[1 << 16];
  while (size > 0) {
    if (!ready(fd, POLLIN, deadline)) return false;
    const ssize_t n = ::recv(fd, buffer, std::min(size, sizeof(buffer)), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n == 0) throw Error("the rendezvous store closed the connection (has rank 0 stopped?)");
    if (n < 0) throw Error(fmt::format("the rendezvous store broke off ({})", std::strerror(errno)));
    out.append(buffer, static_cast<size_t>(n));
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::vector<uint8_t> to_bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string as_string(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

std::string encode_store_request(const StoreRequest& request) {
  std::string body(1, static_cast<char>(request.op));
  put_u32(body, request.fields.size());
  for (const auto& field : request.fields) {
    put_u32(body, field.size());
    body += field;
  }
  std::string frame;
  put_u32(frame, body.size());
  return frame + body;
}

std::string encode_store_reply(std::string_view reply) {
  std::string frame;
  put_u32(frame, reply.size());
  frame += reply;
  return frame;
}

std::optional<std::pair<StoreRequest, size_t>> parse_store_request(std::string_view bytes) {
  if (bytes.size() < 4) return std::nullopt;
  const size_t length = get_u32(bytes, 0);
  if (length > kMaxStoreFrame) {
    throw Error(fmt::format("store request: a frame of {} bytes, expected at most {}", length, kMaxStoreFrame));
  }
  if (bytes.size() < 4 + length) return std::nullopt;
  const std::string_view frame = bytes.substr(4, length);
  if (frame.size() < 5) throw Error(fmt::format("store request: a frame of {} bytes, expected at least 5", length));
  StoreRequest request;
  request.op = static_cast<StoreOp>(frame[0]);
  const size_t count = get_u32(frame, 1);
  if (!takes(request.op, count)) {
    throw Error(fmt::format("store request: operation {} with {} fields", static_cast<int>(frame[0]), count));
  }
  size_t at = 5;
  for (size_t i = 0; i < count; ++i) {
    if (frame.size() - at < 4 || frame.size() - at - 4 < get_u32(frame, at)) {
      throw Error(fmt::format("store request: field {} runs past the frame's {} bytes", i, length));
    }
    const size_t size = get_u32(frame, at);
    request.fields.emplace_back(frame.substr(at + 4, size));
    at += 4 + size;
  }
  if (at != frame.size()) throw Error(fmt::format("store request: {} bytes after the last field", frame.size() - at));
  return std::make_pair(std::move(request), 4 + length);
}

void StoreTable::put(const std::string& key, std::string value) {
  const auto found = values_.find(key);
  const size_t old = found == values_.end() ? 0 : key.size() + found->second.size();
  if (found == values_.end() && values_.size() >= kMaxStoreKeys) {
    throw Error(fmt::format("store: more than {} keys", kMaxStoreKeys));
  }
  if (bytes_ - old + key.size() + value.size() > kMaxStoreBytes) {
    throw Error(fmt::format("store: more than {} bytes of keys and values", kMaxStoreBytes));
  }
  bytes_ = bytes_ - old + key.size() + value.size();
  ++version_;
  values_[key] = std::move(value);
}

std::optional<std::string> StoreTable::apply(const StoreRequest& request) {
  const auto& f = request.fields;
  const auto has = [&](const std::string& key) { return values_.count(key) != 0; };
  switch (request.op) {
    case StoreOp::kSet:
      put(f[0], f[1]);
      return "";
    case StoreOp::kGet:
      if (!has(f[0])) return std::nullopt;
      return values_[f[0]];
    case StoreOp::kAdd: {
      const auto amount = whole_number(f[1]);
      const auto now = has(f[0]) ? whole_number(values_[f[0]]) : std::optional<int64_t>(0);
      int64_t sum = 0;
      if (!amount || !now || __builtin_add_overflow(*now, *amount, &sum)) {
        throw Error(fmt::format("store: cannot add '{}' to key '{}'", f[1].substr(0, 24), f[0].substr(0, 80)));
      }
      put(f[0], std::to_string(sum));
      return std::to_string(sum);
    }
    case StoreOp::kCompareSet:  // as c10d's TCPStore: a missing key is set only when `expected` is empty
      if (!has(f[0])) {
        if (!f[1].empty()) return f[1];
        put(f[0], f[2]);
        return f[2];
      }
      if (values_[f[0]] == f[1]) put(f[0], f[2]);
      return values_[f[0]];
    case StoreOp::kDeleteKey: {
      const auto found = values_.find(f[0]);
      if (found == values_.end()) return "0";
      bytes_ -= found->first.size() + found->second.size();
      values_.erase(found);
      ++version_;
      return "1";
    }
    case StoreOp::kCheck:
    case StoreOp::kWait: {
      const bool all = std::all_of(f.begin(), f.end(), has);
      if (request.op == StoreOp::kCheck) return all ? "1" : "0";
      if (!all) return std::nullopt;
      return "";
    }
    case StoreOp::kNumKeys:
      return std::to_string(values_.size());
  }
  throw Error("store: unknown operation");
}

// Rank 0's side: one thread that accepts clients and answers their requests in turn,
// each client's in order; a get or wait for keys not set yet is answered when they
// are. A client whose bytes are not requests, or whose request is refused, is
// disconnected; the others go on.
class RendezvousStore::Server {
 public:
  Server(const std::string& host, uint16_t& port) : listeners_(listen_on(host, port)) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) throw Error("rendezvous store: cannot make a pipe");
    wake_read_ = Socket(pipe_fds[0]);
    wake_write_ = Socket(pipe_fds[1]);
    thread_ = std::thread([this] { run(); });
  }
  ~Server() {
    stop_ = true;
    [[maybe_unused]] const ssize_t n = ::write(wake_write_.fd(), "x", 1);
    thread_.join();
  }

 private:
  struct Client {
    Socket socket;
    std::string in, out;
    bool waiting = false;  // its first request waits for keys
  };

  void run();
  void accept_from(int listener);
  bool serve(Client& client);
  bool read_from(Client& client);
  bool write_to(Client& client);

  std::vector<Socket> listeners_;
  Socket wake_read_, wake_write_;
  std::vector<Client> clients_;
  StoreTable table_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void RendezvousStore::Server::run() {
  std::vector<pollfd> polled;
  while (!stop_) {
    const uint64_t before = table_.version();
    polled.assign({{wake_read_.fd(), POLLIN, 0}});
    for (const auto& l : listeners_) polled.push_back({l.fd(), POLLIN, 0});
    for (const auto& c : clients_) {
      const bool room = c.in.size() <= kMaxStoreFrame + 8 && !c.waiting;
      polled.push_back({c.socket.fd(), static_cast<short>((room ? POLLIN : 0) | (c.out.empty() ? 0 : POLLOUT)), 0});
    }
    if (::poll(polled.data(), polled.size(), -1) < 0) continue;  // EINTR
    for (size_t i = 0; i < listeners_.size(); ++i) {
      if (polled[1 + i].revents != 0) accept_from(listeners_[i].fd());
    }
    const size_t first = 1 + listeners_.size(), count = polled.size() - first;
    for (size_t i = 0; i < count; ++i) {
      auto& client = clients_[i];
      const short events = polled[first + i].revents;
      const bool ok = !(events & (POLLIN | POLLHUP | POLLERR)) || read_from(client);
      if (!ok || !write_to(client)) client.socket.reset();
    }
    // Requests that wait for keys are asked again after each change, until one pass
    // changes nothing (an answered wait may let its client's next request set a key).
    for (uint64_t seen = before; table_.version() != seen;) {
      seen = table_.version();
      for (auto& client : clients_) {
        if (client.socket.open() && client.waiting && !serve(client)) client.socket.reset();
      }
    }
    clients_.erase(std::remove_if(clients_.begin(), clients_.end(), [](const Client& c) { return !c.socket.open(); }),
                   clients_.end());
  }
}

void RendezvousStore::Server::accept_from(int listener) {
  Socket s(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
  if (!s.open() || clients_.size() >= kMaxClients) return;
  clients_.push_back({std::move(s), {}, {}, false});
}

// Answers the client's complete requests, in order, up to one that waits; false when
// the client must go (bytes that are not a request, a refused request, replies it
// does not read).
bool RendezvousStore::Server::serve(Client& client) {
  client.waiting = false;
  try {
    while (auto parsed = parse_store_request(client.in)) {
      const auto reply = table_.apply(parsed->first);
      if (!reply) {
        client.waiting = true;
        return true;
      }
      client.out += encode_store_reply(*reply);
      client.in.erase(0, parsed->second);
      if (client.out.size() > kMaxReplyBytes) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Reads what the client sent and answers it; false when it has gone or must go.
bool RendezvousStore::Server::read_from(Client& client) {
  char buffer[1 << 16];
  const ssize_t n = ::recv(client.socket.fd(), buffer, sizeof(buffer), 0);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  client.in.append(buffer, static_cast<size_t>(n));
  return serve(client);
}

bool RendezvousStore::Server::write_to(Client& client) {
  if (client.out.empty()) return true;
  const ssize_t n = ::send(client.socket.fd(), client.out.data(), client.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  client.out.erase(0, static_cast<size_t>(n));
  return true;
}

RendezvousStore::RendezvousStore(const std::string& host, uint16_t port, bool serve, milliseconds timeout)
    : c10d::Store(timeout), host_(host), port_(port) {
  if (serve) server_ = std::make_unique<Server>(host, port_);
  connect(timeout);
}

RendezvousStore::~RendezvousStore() = default;

// Connects to the server, trying again every 100 ms until `timeout`: rank 0 may start
// after the others.
void RendezvousStore::connect(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  int last_error = 0;
  for (;;) {
    auto s = try_connect(host_, port_, deadline, last_error);
    if (s.open()) {
      connection_ = std::move(s);
      return;
    }
    if (Clock::now() + milliseconds(100) >= deadline) break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  throw Error(fmt::format("no rendezvous store answered at {}:{} ({})", host_, port_,
                          last_error ? std::strerror(last_error) : "no address"));
}

// Sends the request and reads its reply. Past the timeout it throws c10::Error, as
// TCPStore's does. Any failure drops the connection, since a late or broken reply
// must not answer the next request; the next call connects again.
std::string RendezvousStore::call(const StoreRequest& request, milliseconds timeout) {
  if (!connection_.open()) connect(timeout_);
  const int fd = connection_.fd();
  const auto deadline = Clock::now() + timeout;
  std::string header, reply;
  bool in_time = false;
  try {
    in_time = send_all(fd, encode_store_request(request), deadline) && recv_exact(fd, 4, header, deadline);
    if (in_time) {
      const size_t size = get_u32(header, 0);
      if (size > kMaxReplyBytes) throw Error(fmt::format("the rendezvous store sent a reply of {} bytes", size));
      in_time = recv_exact(fd, size, reply, deadline);
    }
  } catch (...) {
    connection_.reset();
    throw;
  }
  if (!in_time) {
    connection_.reset();
    TORCH_CHECK(false, "rendezvous store: timed out after ", timeout.count(), " ms waiting for keys");
  }
  return reply;
}

void RendezvousStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  call({StoreOp::kSet, {key, as_string(value)}}, timeout_);
}

std::vector<uint8_t> RendezvousStore::compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                                 const std::vector<uint8_t>& desired) {
  return to_bytes(call({StoreOp::kCompareSet, {key, as_string(expected), as_string(desired)}}, timeout_));
}

std::vector<uint8_t> RendezvousStore::get(const std::string& key) {
  return to_bytes(call({StoreOp::kGet, {key}}, timeout_));
}

int64_t RendezvousStore::add(const std::string& key, int64_t value) {
  const auto sum = whole_number(call({StoreOp::kAdd, {key, std::to_string(value)}}, timeout_));
  if (!sum) throw Error("the rendezvous store's sum is not a whole number");
  return *sum;
}

bool RendezvousStore::deleteKey(const std::string& key) { return call({StoreOp::kDeleteKey, {key}}, timeout_) == "1"; }

bool RendezvousStore::check(const std::vector<std::string>& keys) {
  return call({StoreOp::kCheck, keys}, timeout_) == "1";
}

int64_t RendezvousStore::getNumKeys() {
  const auto n = whole_number(call({StoreOp::kNumKeys, {}}, timeout_));
  if (!n) throw Error("the rendezvous store's key count is not a whole number");
  return *n;
}

void RendezvousStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void RendezvousStore::wait(const std::vector<std::string>& keys, const milliseconds& timeout) {
  call({StoreOp::kWait, keys}, timeout);
}

}  // namespace llm
