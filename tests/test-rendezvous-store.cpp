// The rendezvous store that rank 0 serves for ranks started by hand: its frames, its
// table's answers (those of c10d's TCPStore), waits and timeouts, a client that sends
// bytes that are not requests, a server whose reply is broken, and a port in use.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "helpers.h"
#include "llm/train/rendezvous_store.h"
#include "llm/util/error.h"
#include "llm/util/socket.h"

using namespace std::chrono_literals;
using llm::StoreOp;
using llm::StoreRequest;

namespace {

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

// A plain TCP connection to 127.0.0.1:port that sends `raw` and reports whether the
// server then closed it (recv returned 0 within two seconds).
bool server_closes_after(uint16_t port, const std::string& raw) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval two_seconds{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &two_seconds, sizeof(two_seconds));
  bool closed = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(raw.size())) {
    char c;
    closed = ::recv(fd, &c, 1, 0) == 0;
  }
  ::close(fd);
  return closed;
}

}  // namespace

TEST_CASE("a store request's frame round-trips, is incomplete at every shorter prefix, and refuses a bad one") {
  const StoreRequest request{StoreOp::kCompareSet, {"key", "", std::string("v\0w", 3)}};
  const auto frame = llm::encode_store_request(request);
  const auto parsed = llm::parse_store_request(frame + "next");
  REQUIRE(parsed);
  CHECK(parsed->second == frame.size());
  CHECK(parsed->first.op == StoreOp::kCompareSet);
  CHECK(parsed->first.fields == request.fields);
  for (size_t n = 0; n < frame.size(); ++n) CHECK_FALSE(llm::parse_store_request(frame.substr(0, n)));

  CHECK_THROWS_WITH(llm::parse_store_request(llm::encode_store_request({StoreOp::kGet, {"a", "b"}})),
                    Catch::Contains("operation 2 with 2 fields"));
  CHECK_THROWS_WITH(llm::parse_store_request(std::string("\xff\xff\xff\xff", 4)),
                    Catch::Contains("a frame of 4294967295 bytes, expected at most 4194304"));
  auto longer = frame;  // one byte more in the frame than its fields fill
  longer[0] = static_cast<char>(longer[0] + 1);
  CHECK_THROWS_WITH(llm::parse_store_request(longer + "x"), Catch::Contains("1 bytes after the last field"));
  auto cut = frame;  // the last field's length runs past the frame
  cut[cut.size() - 7] = 9;
  CHECK_THROWS_WITH(llm::parse_store_request(cut), Catch::Contains("field 2 runs past the frame"));
  CHECK_THROWS_WITH(llm::parse_store_request(llm::encode_store_request({static_cast<StoreOp>(99), {}})),
                    Catch::Contains("operation 99 with 0 fields"));
}

TEST_CASE("the store's table answers as c10d's TCPStore does, and refuses what it cannot add") {
  llm::StoreTable table;
  CHECK(table.apply({StoreOp::kGet, {"a"}}) == std::nullopt);  // waits
  CHECK(table.apply({StoreOp::kWait, {"a", "b"}}) == std::nullopt);
  CHECK(table.apply({StoreOp::kSet, {"a", "1"}}) == "");
  CHECK(table.apply({StoreOp::kCheck, {"a", "b"}}) == "0");
  CHECK(table.apply({StoreOp::kAdd, {"b", "5"}}) == "5");
  CHECK(table.apply({StoreOp::kAdd, {"b", "-7"}}) == "-2");
  CHECK(table.apply({StoreOp::kWait, {"a", "b"}}) == "");
  CHECK(table.apply({StoreOp::kGet, {"b"}}) == "-2");
  // compareSet: a missing key is set only when `expected` is empty; a present one
  // only when it equals `expected`; the answer is the value after.
  CHECK(table.apply({StoreOp::kCompareSet, {"c", "x", "y"}}) == "x");
  CHECK(table.apply({StoreOp::kCheck, {"c"}}) == "0");
  CHECK(table.apply({StoreOp::kCompareSet, {"c", "", "y"}}) == "y");
  CHECK(table.apply({StoreOp::kCompareSet, {"c", "x", "z"}}) == "y");
  CHECK(table.apply({StoreOp::kCompareSet, {"c", "y", "z"}}) == "z");
  CHECK(table.apply({StoreOp::kNumKeys, {}}) == "3");
  CHECK(table.apply({StoreOp::kDeleteKey, {"c"}}) == "1");
  CHECK(table.apply({StoreOp::kDeleteKey, {"c"}}) == "0");
  CHECK(table.apply({StoreOp::kNumKeys, {}}) == "2");
  CHECK_THROWS_WITH(table.apply({StoreOp::kAdd, {"a", "x"}}), Catch::Contains("cannot add 'x' to key 'a'"));
  CHECK_THROWS_WITH(table.apply({StoreOp::kAdd, {"b", "-9223372036854775807"}}),
                    Catch::Contains("cannot add '-9223372036854775807' to key 'b'"));  // overflow
  CHECK_THROWS_WITH(table.apply({StoreOp::kSet, {"big", std::string(llm::StoreTable::kMaxStoreBytes, 'x')}}),
                    Catch::Contains("more than 67108864 bytes of keys and values"));
  CHECK(table.apply({StoreOp::kGet, {"b"}}) == "-2");  // a refused request changed nothing
  for (const std::string amount : {"", "-", "+5", " 5", "5 ", "0x5", "9223372036854775808"}) {
    CAPTURE(amount);
    CHECK_THROWS_WITH(table.apply({StoreOp::kAdd, {"b", amount}}), Catch::Contains("cannot add"));
  }
  CHECK(table.apply({StoreOp::kAdd, {"b", "-9223372036854775806"}}) == "-9223372036854775808");
}

TEST_CASE("the store's table version moves with each set and delete, and only then") {
  llm::StoreTable table;
  CHECK(table.version() == 0);
  table.apply({StoreOp::kSet, {"a", "1"}});
  table.apply({StoreOp::kAdd, {"n", "1"}});
  table.apply({StoreOp::kCompareSet, {"a", "1", "2"}});
  CHECK(table.version() == 3);
  table.apply({StoreOp::kGet, {"a"}});  // reads and waits change nothing
  table.apply({StoreOp::kWait, {"b"}});
  table.apply({StoreOp::kCheck, {"a"}});
  table.apply({StoreOp::kCompareSet, {"a", "9", "3"}});  // not expected: no set
  table.apply({StoreOp::kDeleteKey, {"missing"}});
  CHECK_THROWS(table.apply({StoreOp::kAdd, {"a", "x"}}));
  CHECK(table.version() == 3);
  table.apply({StoreOp::kDeleteKey, {"a"}});
  CHECK(table.version() == 4);
}

TEST_CASE("the rendezvous store serves its clients: a get waits for the key, a wait times out as c10::Error") {
  llm::RendezvousStore server("127.0.0.1", 0, /*serve=*/true, 5s);
  REQUIRE(server.port() != 0);
  llm::RendezvousStore client("127.0.0.1", server.port(), /*serve=*/false, 5s);
  server.set("from/0", bytes("zero"));
  CHECK(text(client.get("from/0")) == "zero");
  CHECK(client.add("count", 2) == 2);
  CHECK(server.add("count", 3) == 5);
  CHECK(server.check({"from/0", "count"}));
  CHECK(server.getNumKeys() == 2);

  std::thread later([&] {
    std::this_thread::sleep_for(200ms);
    server.set("from/1", bytes("one"));
  });
  const auto start = std::chrono::steady_clock::now();
  CHECK(text(client.get("from/1")) == "one");  // waited for the other's set
  later.join();
  CHECK(std::chrono::steady_clock::now() - start >= 150ms);

  CHECK_THROWS_AS(client.wait({"never"}, 100ms), c10::Error);
  CHECK(text(client.get("from/1")) == "one");  // the store still answers after a timeout
  CHECK(client.deleteKey("from/1"));
  CHECK_FALSE(client.check({"from/1"}));
}

TEST_CASE("the rendezvous store drops a client whose bytes are not requests and serves the others") {
  llm::RendezvousStore server("127.0.0.1", 0, /*serve=*/true, 5s);
  CHECK(server_closes_after(server.port(), std::string("\xff\xff\xff\xff", 4)));  // a 4 GB frame
  CHECK(server_closes_after(server.port(), llm::encode_store_request({StoreOp::kGet, {"a", "b"}})));
  CHECK(server_closes_after(server.port(), llm::encode_store_request({StoreOp::kAdd, {"k", "one"}})));
  server.set("k", bytes("v"));
  CHECK(text(server.get("k")) == "v");
}

TEST_CASE("a client drops a connection whose reply is broken, and the next call connects again") {
  // A stand-in server on 127.0.0.1: its first connection answers with a reply length
  // over the bound, its second with the value "v".
  llm::Socket listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener.fd(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  REQUIRE(::listen(listener.fd(), 4) == 0);
  socklen_t length = sizeof(address);
  ::getsockname(listener.fd(), reinterpret_cast<sockaddr*>(&address), &length);
  std::thread stand_in([&] {
    for (const auto& reply : {std::string("\xff\xff\xff\xff", 4), llm::encode_store_reply("v")}) {
      const llm::Socket connection(::accept(listener.fd(), nullptr, nullptr));
      char request[256];
      if (::recv(connection.fd(), request, sizeof(request), 0) <= 0) return;
      ::send(connection.fd(), reply.data(), reply.size(), MSG_NOSIGNAL);
    }
  });
  llm::RendezvousStore client("127.0.0.1", ntohs(address.sin_port), /*serve=*/false, 2s);
  CHECK_THROWS_WITH(client.get("k"), Catch::Contains("sent a reply of 4294967295 bytes"));
  CHECK(text(client.get("k")) == "v");  // a new connection, the stand-in's second
  stand_in.join();
}

TEST_CASE("the rendezvous store names a port in use, and a client that finds no store gives up in time") {
  llm::RendezvousStore server("127.0.0.1", 0, /*serve=*/true, 5s);
  CHECK_THROWS_AS(llm::RendezvousStore("127.0.0.1", server.port(), /*serve=*/true, 1s), llm::StorePortInUse);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(llm::RendezvousStore("127.0.0.1", 1, /*serve=*/false, 300ms),
                    Catch::Contains("no rendezvous store answered at 127.0.0.1:1"));
  CHECK(std::chrono::steady_clock::now() - start < 3s);  // port 1: nothing listens there
}
