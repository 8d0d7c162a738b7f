// The JSON config loaders (model and run settings) on any text: each returns a valid
// config or refuses with an llm::Error, and what it accepts reads back equal from the
// JSON it writes.
#include <nlohmann/json.hpp>

#include "fuzz.h"
#include "llm/model/gpt_config.h"
#include "llm/train/train_config.h"
#include "llm/util/error.h"

namespace {

template <typename Parse>
void check(std::string_view text, Parse parse, const char* what) {
  using llm::fuzz::require;
  decltype(parse(text)) config;
  try {
    config = parse(text);
  } catch (const llm::Error&) {
    return;
  }
  try {
    config.validate();
  } catch (const llm::Error& e) {
    llm::fuzz::require(false, std::string(what) + ": accepted, then found invalid: " + e.what());
  }
  const auto written = to_json(config).dump();
  require(to_json(parse(written)).dump() == written, std::string(what) + ": does not read back from its JSON");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = llm::fuzz::bytes(data, size);
  check(text, [](std::string_view json) { return llm::parse_gpt_config(json, "model config"); }, "model config");
  check(text, [](std::string_view json) { return llm::parse_train_config(json, "run settings"); }, "run settings");
  return 0;
}
