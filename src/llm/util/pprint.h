#pragma once

#include <string>
#include <utility>
#include <vector>

namespace llm {

/// Python's pprint.pp(d) of a dict of strings, keys in their order: the dict's repr
/// when it fits in `width` columns; else one key per line, and a string too long for
/// its line split at whitespace into adjacent literals, each line within the width,
/// as pprint's _pprint_str splits it.
std::string python_pprint(const std::vector<std::pair<std::string, std::string>>& items, size_t width = 80);

}  // namespace llm
