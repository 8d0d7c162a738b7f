#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/util/error.h"
#include "llm/util/socket.h"

namespace llm {

/// Rank 0 could not serve the store: its port is in use on one of the host's addresses.
struct StorePortInUse : Error {
  using Error::Error;
};

/// What a client asks the rendezvous store, as c10d's Store names it.
enum class StoreOp : uint8_t { kSet = 1, kGet, kAdd, kCompareSet, kDeleteKey, kCheck, kWait, kNumKeys };

/// One request: its operation and its keys and values, in the order of the Store
/// method's arguments (add's amount as decimal digits).
struct StoreRequest {
  StoreOp op = StoreOp::kNumKeys;
  std::vector<std::string> fields;
};

/// The store's frames on the wire, little-endian: a request is its length (u32, what
/// follows), the operation (u8), the number of fields (u32) and each field as its
/// length (u32) and bytes; a reply is its length (u32) and bytes. A request's frame is
/// at most kMaxStoreFrame bytes.
inline constexpr size_t kMaxStoreFrame = size_t{4} << 20;
std::string encode_store_request(const StoreRequest& request);
std::string encode_store_reply(std::string_view reply);
/// The request at the front of `bytes` and how many bytes it takes, or nullopt while
/// its frame is incomplete. Throws llm::Error for bytes that are not a request: a frame
/// over kMaxStoreFrame, an unknown operation, a field count the operation does not
/// take, fields that do not fill the frame exactly.
std::optional<std::pair<StoreRequest, size_t>> parse_store_request(std::string_view bytes);

/// The store's keys and values, as rank 0 serves them. `apply` answers a request, or
/// returns nullopt when it waits for keys that are not set yet (get, wait): the server
/// asks again after the next change. Throws llm::Error for a request it must refuse
/// (add to a value that is not a whole number, an overflow, a table over its bounds:
/// kMaxStoreKeys keys, kMaxStoreBytes bytes of keys and values).
class StoreTable {
 public:
  static constexpr size_t kMaxStoreKeys = 1 << 16;
  static constexpr size_t kMaxStoreBytes = size_t{64} << 20;
  std::optional<std::string> apply(const StoreRequest& request);
  size_t size() const { return values_.size(); }
  /// How many times a key was set or deleted: waiting requests are asked again only
  /// after it moves.
  uint64_t version() const { return version_; }

 private:
  void put(const std::string& key, std::string value);
  std::map<std::string, std::string> values_;
  size_t bytes_ = 0;
  uint64_t version_ = 0;
};

/// The rendezvous of a data-parallel run whose ranks were started by hand or run on
/// several machines (one machine under scripts/launch.sh uses c10d's FileStore):
/// rank 0 serves the store on `host` (MASTER_ADDR) at `port` and nowhere else, and
/// every rank, rank 0 included, is a client. c10d's TCPStore would serve the same on
/// every interface: LibTorch 1.13 gives it no address to bind. A wait past its
/// timeout throws c10::Error, as TCPStore's does; a store that cannot be reached or
/// breaks off throws llm::Error.
class RendezvousStore : public c10d::Store {
 public:
  /// `serve`: this rank listens on every address `host` resolves to (port 0: a free
  /// port, port() says which). Throws StorePortInUse, or llm::Error when it cannot
  /// listen or, for a client, when no server answers within `timeout`.
  RendezvousStore(const std::string& host, uint16_t port, bool serve, std::chrono::milliseconds timeout);
  ~RendezvousStore() override;
  uint16_t port() const { return port_; }

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  class Server;
  std::string call(const StoreRequest& request, std::chrono::milliseconds timeout);
  void connect(std::chrono::milliseconds timeout);
  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;
  Socket connection_;
};

}  // namespace llm
