#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace llm {

/// One setting of a config struct: its JSON key (the lesson's name), its member and a
/// line of help. A config's table of fields is the one list that reading, writing,
/// recording and the command-line flags all follow, so no setting can miss one. An
/// optional setting is written only when it is set.
template <typename Config>
struct ConfigField {
  std::string_view key;
  std::variant<int64_t Config::*, bool Config::*, double Config::*, std::optional<double> Config::*,
               std::optional<int64_t> Config::*, std::string Config::*>
      member;
  std::string_view help;
};

}  // namespace llm
