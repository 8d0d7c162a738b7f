#include "llm/util/pprint.h"

#include "llm/util/show.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

// Columns as Python counts them: characters.
size_t columns(const std::string& text) { return static_cast<size_t>(utf8_length(text)); }

// str.splitlines(keepends=True) for the line breaks instruction data holds.
std::vector<std::string> lines_kept(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      lines.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// re.findall(r'\S*\s*', line) without its last, empty, match.
std::vector<std::string> words_with_spaces(const std::string& line) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < line.size()) {
    const size_t start = i;
    while (i < line.size() && !space(line[i])) ++i;
    while (i < line.size() && space(line[i])) ++i;
    parts.push_back(line.substr(start, i - start));
  }
  return parts;
}

// pprint's _pprint_str at a dict's level: the string's literals, one per output line.
std::vector<std::string> string_chunks(const std::string& text, size_t indent, size_t allowance, size_t width) {
  const auto lines = lines_kept(text);
  const size_t max_width = width > indent ? width - indent : 0;
  std::vector<std::string> chunks;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool last_line = i + 1 == lines.size();
    const auto rep = python_repr(lines[i]);
    if (columns(rep) <= (last_line && max_width >= allowance ? max_width - allowance : max_width)) {
      chunks.push_back(rep);
      continue;
    }
    const auto parts = words_with_spaces(lines[i]);
    std::string current;
    for (size_t j = 0; j < parts.size(); ++j) {
      const bool last_part = last_line && j + 1 == parts.size();
      const size_t limit = last_part && max_width >= allowance ? max_width - allowance : max_width;
      const auto candidate = current + parts[j];
      if (columns(python_repr(candidate)) > limit) {
        if (!current.empty()) chunks.push_back(python_repr(current));
        current = parts[j];
      } else {
        current = candidate;
      }
    }
    if (!current.empty()) chunks.push_back(python_repr(current));
  }
  return chunks;
}

}  // namespace

std::string python_pprint(const std::vector<std::pair<std::string, std::string>>& items, size_t width) {
  std::string one_line = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    one_line += (i == 0 ? "" : ", ") + python_repr(items[i].first) + ": " + python_repr(items[i].second);
  }
  one_line += "}";
  if (columns(one_line) <= width) return one_line;
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    const auto key = python_repr(items[i].first);
    const size_t indent = 1 + columns(key) + 2;  // after "{" or " ", the key and ": "
    const size_t allowance = 1;                    // the "," after it, or the closing "}"
    out += (i == 0 ? "" : ",\n ") + key + ": ";
    const auto rep = python_repr(items[i].second);
    if (items[i].second.empty() || columns(rep) + indent + allowance <= width) {
      out += rep;
      continue;
    }
    const auto chunks = string_chunks(items[i].second, indent, allowance, width);
    for (size_t k = 0; k < chunks.size(); ++k) out += (k == 0 ? "" : "\n" + std::string(indent, ' ')) + chunks[k];
  }
  return out + "}";
}

}  // namespace llm
