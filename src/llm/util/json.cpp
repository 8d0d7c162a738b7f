#include "llm/util/json.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

nlohmann::json parse_json_object(std::string_view text, std::string_view what, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{} '{}': not valid JSON ({})", what, source, e.what()));
  }
  if (!json.is_object()) throw Error(fmt::format("{} '{}': expected a JSON object", what, source));
  return json;
}

}  // namespace llm
