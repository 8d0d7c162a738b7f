// The answers of an HTTP server (parse_http_response, which lesson 7.8's Ollama client
// reads with) and of Ollama's chat API (chat_reply): any bytes parse or throw
// HttpError / llm::Error. A parsed answer has a three-digit status and a body no
// longer than the bytes read. And the input, sent as a chunked body cut where its
// first byte says, comes back exactly.
#include <string>

#include "fuzz.h"
#include "llm/io/http.h"
#include "llm/io/ollama.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string raw = llm::fuzz::bytes(data, size);
  try {
    const auto response = llm::parse_http_response(raw, "fuzz input");
    llm::fuzz::require(response.status >= 0 && response.status <= 999, "a status outside 000-999");
    llm::fuzz::require(response.body.size() <= raw.size(), "a body longer than the answer");
    try {
      llm::chat_reply(response, "fuzz input");
    } catch (const llm::Error&) {
    }
  } catch (const llm::HttpError&) {
  }
  llm::parse_score(raw);

  // The same bytes as a chunked body, in chunks of 1 to 16 bytes.
  const size_t piece = size == 0 ? 1 : 1 + data[0] % 16;
  std::string chunked = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (size_t at = 0; at < raw.size(); at += piece) {
    const auto part = raw.substr(at, piece);
    chunked += llm::fuzz::hex(part.size()) + "\r\n" + part + "\r\n";
  }
  chunked += "0\r\n\r\n";
  const auto response = llm::parse_http_response(chunked, "chunked");
  llm::fuzz::require(response.status == 200 && response.body == raw, "a chunked body did not come back as sent");
  return 0;
}
