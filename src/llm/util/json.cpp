#include "llm/util/json.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "llm/util/error.h"

namespace llm {

nlohmann::json parse_json_object(std::string_view text, std::string_view what, std::string_view source) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw Error(fmt::format("{} '{}': not valid JSON (a NUL byte at offset {})", what, source, nul));
  }
  // Python's json.load keeps the last of two equal keys; here a repeated key is an
  // error, as it is almost always a mistake.
  std::vector<std::set<std::string>> keys;  // the keys of each open object
  const auto check_keys = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
      throw Error(fmt::format("{} '{}': the key '{}' appears twice", what, source, parsed.get<std::string>()));
    }
    return true;
  };
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.begin(), text.end(), check_keys);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{} '{}': not valid JSON ({})", what, source, e.what()));
  }
  if (!json.is_object()) throw Error(fmt::format("{} '{}': expected a JSON object", what, source));
  return json;
}

}  // namespace llm
