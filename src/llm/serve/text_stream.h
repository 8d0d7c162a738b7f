#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/text/bpe_tokenizer.h"

namespace llm::serve {

/// An answer's text as its tokens come, for streaming: each call gives the text that
/// is now certain. Bytes of a character split across tokens wait for the rest of it,
/// and text that may be the start of a stop string waits until it is not; a stop
/// string ends the answer before it.
class TextStream {
 public:
  TextStream(const BpeTokenizer& tokenizer, std::vector<std::string> stop);

  /// Adds a token; returns the new certain text (possibly empty).
  std::string add(int64_t id);
  /// Whether a stop string has appeared: the answer ends, and add() gives nothing more.
  bool stopped() const { return stopped_; }
  /// At the end: what was held back (a split character as U+FFFD).
  std::string flush();
  /// All the text given so far.
  const std::string& text() const { return emitted_; }

 private:
  std::string take(bool final);

  const BpeTokenizer& tokenizer_;
  std::vector<std::string> stop_;
  std::vector<int64_t> ids_;
  std::string emitted_;
  bool stopped_ = false;
};

}  // namespace llm::serve
