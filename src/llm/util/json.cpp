#include "llm/util/json.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "llm/util/error.h"
#include "llm/util/utf8.h"

namespace llm {

namespace {

// The offset of the first bracket that opens level kMaxJsonDepth + 1, if any: a linear
// scan that skips strings, before the parser sees the text.
std::optional<size_t> too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, std::string_view what, std::string_view source) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw Error(fmt::format("{} '{}': not valid JSON (a NUL byte at offset {})", what, source, nul));
  }
  if (const auto at = too_deep(text)) {
    throw Error(fmt::format("{} '{}': nested more than {} levels deep at offset {}; expected at most {}", what, source,
                            kMaxJsonDepth, *at, kMaxJsonDepth));
  }
  // Python's json.load keeps the last of two equal keys; here a repeated key is an
  // error, as it is almost always a mistake.
  std::vector<std::set<std::string>> keys;  // the keys of each open object
  const auto check_keys = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
      throw Error(fmt::format("{} '{}': the key '{}' appears twice", what, source, shortened(parsed.get<std::string>())));
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), check_keys);
  } catch (const nlohmann::json::exception& e) {
    // The library quotes what it last read, each control character as "<U+0009>": a
    // run of them would make a long line, so the reason is cut after its first part.
    throw Error(fmt::format("{} '{}': not valid JSON ({})", what, source, shortened(e.what(), 240)));
  }
}

nlohmann::json parse_json_object(std::string_view text, std::string_view what, std::string_view source) {
  auto json = parse_json(text, what, source);
  if (!json.is_object()) throw Error(fmt::format("{} '{}': expected a JSON object", what, source));
  return json;
}

std::string json_excerpt(const nlohmann::json& value) {
  constexpr size_t kShown = 60;
  if (value.is_array() || value.is_object()) {
    // Depth is bounded by parse_json, but not size: a long array is named, not shown.
    const auto kind = value.is_array() ? "an array" : "an object";
    if (value.size() > 16) return fmt::format("{} of {} items", kind, value.size());
    auto text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() <= kShown) return text;
    return fmt::format("{} of {} items", kind, value.size());
  }
  return shortened(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kShown);
}

}  // namespace llm
