#include "llm/text/text_rules.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "llm/util/error.h"

namespace llm {
namespace {

// Unicode's White_Space property, the \s of Rust's regex crate.
constexpr std::string_view kWhiteSpace =
    R"(\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string nfc(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return std::string(text);  // ASCII is its own NFC
  }
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                              static_cast<utf8proc_ssize_t>(text.size()), &out,
                              static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) throw Error(fmt::format("NFC normalization failed: {}", utf8proc_errmsg(n)));
  std::string result(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return result;
}

std::string replace_every(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  for (size_t at = text.find(from); at != std::string_view::npos; at = text.find(from, start)) {
    out.append(text.substr(start, at - start)).append(to);
    start = at + from.size();
  }
  return out.append(text.substr(start));
}

}  // namespace

std::string normalize(std::string_view text, const std::vector<Normalization>& steps) {
  std::string out(text);
  for (const auto& step : steps) {
    out = step.kind == Normalization::Kind::kNfc ? nfc(out) : replace_every(out, step.from, step.to);
  }
  return out;
}

std::string pcre2_pattern_from_hf(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[++i];
      if (next == 's') {
        out += in_class ? std::string(kWhiteSpace) : fmt::format("[{}]", kWhiteSpace);
      } else if (next == 'S') {
        if (in_class) throw Error(fmt::format("regex '{}': \\S inside a character class is not supported", pattern));
        out += fmt::format("[^{}]", kWhiteSpace);
      } else {
        out += c;
        out += next;
      }
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];  // a leading ] is literal
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  return out;
}

PieceSplit::PieceSplit(std::shared_ptr<const Regex> regex, std::string literal, SplitBehavior behavior)
    : regex_(std::move(regex)), literal_(std::move(literal)), behavior_(behavior) {}

PieceSplit PieceSplit::regex(std::string_view pattern, SplitBehavior behavior) {
  return PieceSplit(std::make_shared<const Regex>(pattern), "", behavior);
}

PieceSplit PieceSplit::literal(std::string text, SplitBehavior behavior) {
  if (text.empty()) throw Error("a split's string must not be empty");
  return PieceSplit(nullptr, std::move(text), behavior);
}

}  // namespace llm
