#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llm/util/regex.h"

namespace llm {

/// One step of a normalizer, as tokenizer.json names them: Unicode's NFC, or the
/// replacement of every occurrence of a string (Gemma's " " -> "▁").
struct Normalization {
  enum class Kind { kNfc, kReplace };
  Kind kind = Kind::kNfc;
  std::string from, to;  // kReplace only
};

/// `text` (valid UTF-8) after each step in turn.
std::string normalize(std::string_view text, const std::vector<Normalization>& steps);

/// A pattern in the syntax of Hugging Face's tokenizers (Rust's regex crate) for
/// PCRE2: \s and \S become Unicode's White_Space class, which is what Rust means by
/// them (PCRE2's own \s also takes U+180E).
std::string pcre2_pattern_from_hf(std::string_view pattern);

/// How a split treats what it matches (tokenizer.json's SplitDelimiterBehavior).
enum class SplitBehavior {
  kIsolated,            // each match is a piece of its own
  kRemoved,             // matches are dropped
  kMergedWithPrevious,  // each match ends the piece before it
  kMergedWithNext,      // each match starts the piece after it
};

/// One cut of a pre-tokenizer: a regex or a literal string, and what becomes of the
/// matches. The pieces between the matches are kept as they are; no piece is empty.
class PieceSplit {
 public:
  /// `pattern` in PCRE2's syntax, compiled once.
  static PieceSplit regex(std::string_view pattern, SplitBehavior behavior);
  static PieceSplit literal(std::string text, SplitBehavior behavior);

  /// Calls emit(piece) for each piece of `text` (valid UTF-8), in order.
  template <typename Emit>
  void for_each_piece(std::string_view text, Emit&& emit) const {
    size_t gap = 0;  // where the text not yet emitted starts
    const auto on_match = [&](size_t begin, size_t end) {
      if (begin == end) return;
      switch (behavior_) {
        case SplitBehavior::kIsolated:
          if (begin > gap) emit(text.substr(gap, begin - gap));
          emit(text.substr(begin, end - begin));
          gap = end;
          break;
        case SplitBehavior::kRemoved:
          if (begin > gap) emit(text.substr(gap, begin - gap));
          gap = end;
          break;
        case SplitBehavior::kMergedWithPrevious:
          emit(text.substr(gap, end - gap));
          gap = end;
          break;
        case SplitBehavior::kMergedWithNext:
          if (begin > gap) emit(text.substr(gap, begin - gap));
          gap = begin;
          break;
      }
    };
    if (regex_) {
      regex_->for_each_match(text, on_match);
    } else {
      for (size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size())) {
        on_match(at, at + literal_.size());
      }
    }
    if (gap < text.size()) emit(text.substr(gap));
  }

 private:
  PieceSplit(std::shared_ptr<const Regex> regex, std::string literal, SplitBehavior behavior);

  std::shared_ptr<const Regex> regex_;  // shared: a tokenizer's copies share the compiled pattern
  std::string literal_;
  SplitBehavior behavior_;
};

}  // namespace llm
