#include "llm/text/token_corpus.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <string>
#include <thread>

namespace llm {
namespace {

bool graphic(char c) { return c > ' ' && c < 0x7f; }
bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

bool is_safe_cut(std::string_view text, size_t p) {
  const bool after_newline = p >= 2 && p < text.size() && text[p - 1] == '\n' && graphic(text[p - 2]) &&
                             graphic(text[p]);
  const bool before_word = p >= 1 && p + 1 < text.size() && text[p] == ' ' && graphic(text[p - 1]) &&
                           letter(text[p + 1]);
  return after_newline || before_word;
}

size_t last_safe_cut(std::string_view text, size_t before) {
  for (size_t p = std::min(before, text.size()); p >= 1; --p) {
    if (is_safe_cut(text, p)) return p;
  }
  return std::string_view::npos;
}

size_t first_safe_cut(std::string_view text, size_t from) {
  for (size_t p = std::max<size_t>(from, 1); p < text.size(); ++p) {
    if (is_safe_cut(text, p)) return p;
  }
  return std::string_view::npos;
}

std::set<std::string> end_of_text_allowed(const BpeTokenizer& tokenizer) {
  if (!tokenizer.special_token(kEndOfText)) return {};
  return {std::string(kEndOfText)};
}

std::vector<int64_t> encode_in_parallel(const BpeTokenizer& tokenizer, std::string_view text, int threads) {
  if (threads <= 1 && text.size() <= kEncodePart) return tokenizer.encode(text);
  // Parts of about kEncodePart bytes, cut at safe cuts.
  std::vector<size_t> bounds{0};
  while (text.size() - bounds.back() > kEncodePart + kEncodePart / 2) {
    const size_t cut = last_safe_cut(text, bounds.back() + kEncodePart);
    bounds.push_back(cut != std::string_view::npos && cut > bounds.back()
                         ? cut
                         : std::min(first_safe_cut(text, bounds.back() + kEncodePart), text.size()));
    if (bounds.back() == text.size()) break;
  }
  if (bounds.back() != text.size()) bounds.push_back(text.size());
  const size_t parts = bounds.size() - 1;
  std::vector<std::vector<int64_t>> ids(parts);
  std::vector<std::exception_ptr> errors(parts);
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t k = next++; k < parts; k = next++) {
      try {
        ids[k] = tokenizer.encode(text.substr(bounds[k], bounds[k + 1] - bounds[k]));
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < std::min<int>(threads, static_cast<int>(parts)); ++t) workers.emplace_back(work);
  work();
  for (auto& worker : workers) worker.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  size_t total = 0;
  for (const auto& part : ids) total += part.size();
  std::vector<int64_t> all;
  all.reserve(total);
  for (const auto& part : ids) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace llm
