// What rank 0's rendezvous store reads from any client that reaches its port: frames
// of requests, answered by the store's table in order. Any bytes give requests and
// answers or an llm::Error; a parsed request encodes back to the very bytes it came
// from (the frame has one spelling), and no frame is longer than the bytes left.
#include <string>
#include <string_view>

#include "fuzz.h"
#include "llm/train/rendezvous_store.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string raw = llm::fuzz::bytes(data, size);
  std::string_view left = raw;
  llm::StoreTable table;
  try {
    while (auto parsed = llm::parse_store_request(left)) {
      const auto& [request, used] = *parsed;
      llm::fuzz::require(used > 0 && used <= left.size(), "a frame longer than the bytes left");
      llm::fuzz::require(llm::encode_store_request(request) == left.substr(0, used),
                         "a request that does not encode back to its bytes");
      table.apply(request);
      left.remove_prefix(used);
    }
  } catch (const llm::Error&) {
  }
  return 0;
}
