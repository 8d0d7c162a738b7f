#include "llm/model/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "llm/util/error.h"

namespace llm {

void HfConfig::fail(std::string_view key, std::string_view what) const {
  throw Error(fmt::format("config.json '{}': {} {}", source_, key, what));
}

bool HfConfig::has(const char* key) const {
  const auto found = json_.find(key);
  return found != json_.end() && !found->is_null();
}

const nlohmann::json& HfConfig::value(const char* key) const {
  if (!has(key)) fail(key, "is missing");
  return json_.at(key);
}

int64_t HfConfig::integer(const char* key) const {
  const auto& v = value(key);
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
    fail(key, "must be an integer");
  }
  return v.get<int64_t>();
}

int64_t HfConfig::integer(const char* key, int64_t otherwise) const { return has(key) ? integer(key) : otherwise; }

double HfConfig::number(const char* key) const {
  const auto& v = value(key);
  if (!v.is_number()) fail(key, "must be a number");
  return v.get<double>();
}

double HfConfig::number(const char* key, double otherwise) const { return has(key) ? number(key) : otherwise; }

std::string HfConfig::string(const char* key, const std::string& otherwise) const {
  if (!has(key)) return otherwise;
  const auto& v = value(key);
  if (!v.is_string()) fail(key, "must be a string");
  return v.get<std::string>();
}

const nlohmann::json& HfConfig::object(const char* key) const {
  const auto& v = value(key);
  if (!v.is_object()) fail(key, "must be an object");
  return v;
}

bool HfConfig::flag(const char* key, bool otherwise) const {
  if (!has(key)) return otherwise;
  const auto& v = value(key);
  if (!v.is_boolean()) fail(key, "must be true or false");
  return v.get<bool>();
}

std::vector<std::string> HfConfig::strings(const char* key) const {
  const auto& v = value(key);
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const auto& s) { return s.is_string(); })) {
    fail(key, "must be a list of strings");
  }
  return v.get<std::vector<std::string>>();
}

std::string HfConfig::dtype() const {
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (!has(key)) continue;
    const auto& v = value(key);
    if (!v.is_string() || (v != "float32" && v != "bfloat16" && v != "float16")) {
      fail(key, "must be \"float32\", \"bfloat16\" or \"float16\"");
    }
    // float16 weights are widened: LibTorch's CPU matrix products have no float16.
    return v == "float16" ? "float32" : v.get<std::string>();
  }
  return "float32";
}

void HfConfig::require(const char* key, const std::vector<nlohmann::json>& allowed, std::string_view what) const {
  const auto found = json_.find(key);
  if (found == json_.end()) return;
  if (std::find(allowed.begin(), allowed.end(), *found) != allowed.end()) return;
  std::string choices;
  for (const auto& a : allowed) choices += fmt::format("{}{}", choices.empty() ? "" : " or ", a.dump());
  const auto shown = found->is_primitive() && found->dump().size() <= 40 ? found->dump() : std::string("another value");
  fail(key, fmt::format("is {}; this project's model has {}, not {}", shown, choices, what));
}

}  // namespace llm
