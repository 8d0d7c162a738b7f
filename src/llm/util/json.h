#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/util/config_field.h"
#include "llm/util/error.h"

namespace llm {

/// The deepest nesting of arrays and objects any reader accepts. nlohmann's parser
/// does not recurse, but dump(), copies and comparisons do, once per level: a hostile
/// text of a million '[' would crash the error message that names it.
inline constexpr int kMaxJsonDepth = 64;

/// Parses `text` as one JSON value, nested at most kMaxJsonDepth deep, no key twice in
/// one object. Anything else is an llm::Error that names it as "<what> '<source>'"
/// ("config 'configs/x.json': not valid JSON (...)").
nlohmann::json parse_json(std::string_view text, std::string_view what, std::string_view source);

/// parse_json, and the value must be an object.
nlohmann::json parse_json_object(std::string_view text, std::string_view what, std::string_view source);

/// A JSON value as an error message shows it: short values whole, a long string cut
/// by shortened(), a long array or object named by its size ("an array of 4096 items").
std::string json_excerpt(const nlohmann::json& value);

/// Sets `config`'s fields from a JSON object's keys; other fields keep their values.
/// An unknown key or a value of the wrong type is an llm::Error naming
/// "<what> '<source>'" and the key.
template <typename Config>
void read_fields(const nlohmann::json& json, const std::vector<ConfigField<Config>>& fields, Config& config,
                 std::string_view what, std::string_view source) {
  for (const auto& item : json.items()) {
    const auto& key = item.key();  // named, not bound: C++17 lambdas cannot capture bindings
    const auto& value = item.value();
    const auto field = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.key == key; });
    if (field == fields.end()) throw Error(fmt::format("{} '{}': unknown key '{}'", what, source, key));
    const auto expect = [&](bool ok, const char* expected) {
      if (!ok) throw Error(fmt::format("{} '{}': {} must be {}, got {}", what, source, key, expected, json_excerpt(value)));
    };
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(config.*member)>;
          if constexpr (std::is_same_v<Value, int64_t> || std::is_same_v<Value, std::optional<int64_t>>) {
            // An integer above int64's range arrives unsigned and would wrap to negative.
            expect(value.is_number_integer(), "an integer");
            expect(!value.is_number_unsigned() ||
                       value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                   "at most 9223372036854775807");
          }
          if constexpr (std::is_same_v<Value, bool>) expect(value.is_boolean(), "true or false");
          if constexpr (std::is_same_v<Value, double> || std::is_same_v<Value, std::optional<double>>) {
            expect(value.is_number(), "a number");
          }
          if constexpr (std::is_same_v<Value, std::string>) expect(value.is_string(), "a string");
          if constexpr (std::is_same_v<Value, std::optional<double>>) {
            config.*member = value.get<double>();
          } else if constexpr (std::is_same_v<Value, std::optional<int64_t>>) {
            config.*member = value.get<int64_t>();
          } else {
            config.*member = value.get<Value>();
          }
        },
        field->member);
  }
}

/// Every field of `config` as a JSON object, in the table's order of keys; an optional
/// field only when it is set.
template <typename Config>
nlohmann::json fields_to_json(const Config& config, const std::vector<ConfigField<Config>>& fields) {
  auto json = nlohmann::json::object();
  for (const auto& field : fields) {
    std::visit(
        [&](auto member) {
          const auto& value = config.*member;
          using Value = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<Value, std::optional<double>> || std::is_same_v<Value, std::optional<int64_t>>) {
            if (value) json[std::string(field.key)] = *value;
          } else {
            json[std::string(field.key)] = value;
          }
        },
        field.member);
  }
  return json;
}

}  // namespace llm
