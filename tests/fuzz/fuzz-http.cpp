// What lesson 7.8's client reads from a server that speaks Ollama's API, once the HTTP
// library has read the answer: the body's NDJSON lines (chat_reply), under any status,
// and a reply as a score (parse_score). Any bytes give a reply or throw HttpError /
// llm::Error; a reply is never longer than the body.
#include <string>

#include "fuzz.h"
#include "llm/io/http.h"
#include "llm/io/ollama.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string raw = llm::fuzz::bytes(data, size);
  for (const int status : {200, 404}) {
    try {
      const auto reply = llm::chat_reply({status, raw}, "fuzz input");
      llm::fuzz::require(status == 200 && reply.size() <= raw.size(), "a reply longer than the body, or from a refusal");
    } catch (const llm::HttpError&) {
    } catch (const llm::Error&) {
    }
  }
  llm::parse_score(raw);
  return 0;
}
