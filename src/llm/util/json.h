#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace llm {

/// Parses `text` as a JSON object. Anything else is an llm::Error that names it as
/// "<what> '<source>'" ("config 'configs/x.json': not valid JSON (...)").
nlohmann::json parse_json_object(std::string_view text, std::string_view what, std::string_view source);

}  // namespace llm
