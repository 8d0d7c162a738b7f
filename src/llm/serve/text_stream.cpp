#include "llm/serve/text_stream.h"

#include <algorithm>

#include "llm/util/utf8.h"

namespace llm::serve {

namespace {

// The length of the text's end that is a complete UTF-8 text: a character still
// missing bytes is cut off (at most 3 bytes).
size_t complete_utf8(std::string_view text) {
  const size_t n = text.size();
  for (size_t back = 1; back <= std::min<size_t>(3, n); ++back) {
    const auto c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) != 0x80) {  // a lead byte (or ASCII): complete if its sequence fits
      const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      return need > back ? n - back : n;
    }
  }
  return n;
}

}  // namespace

TextStream::TextStream(const BpeTokenizer& tokenizer, std::vector<std::string> stop)
    : tokenizer_(tokenizer), stop_(std::move(stop)) {}

std::string TextStream::take(bool final) {
  std::vector<int64_t> known;  // ids past the tokenizer's last token (a padded vocabulary) decode to nothing
  std::copy_if(ids_.begin(), ids_.end(), std::back_inserter(known), [&](int64_t id) { return id < tokenizer_.vocab_size(); });
  auto text = tokenizer_.decode(known);
  if (!final) text.resize(complete_utf8(text));
  text = utf8_replace_invalid(text);
  // Where a stop string starts first, the answer ends; text that could still become
  // one waits for the next token.
  size_t end = text.size();
  for (const auto& stop : stop_) {
    const auto at = text.find(stop, std::min(emitted_.size() >= stop.size() ? emitted_.size() - stop.size() + 1 : 0, text.size()));
    if (at != std::string::npos && at < end) {
      end = at;
      stopped_ = true;
    }
  }
  if (!stopped_ && !final) {
    for (const auto& stop : stop_) {
      for (size_t keep = std::min(stop.size() - 1, text.size()); keep > 0; --keep) {
        if (text.compare(text.size() - keep, keep, stop, 0, keep) == 0) {
          end = std::min(end, text.size() - keep);
          break;
        }
      }
    }
  }
  if (end <= emitted_.size()) return {};
  auto piece = text.substr(emitted_.size(), end - emitted_.size());
  emitted_ += piece;
  return piece;
}

std::string TextStream::add(int64_t id) {
  if (stopped_) return {};
  ids_.push_back(id);
  return take(/*final=*/false);
}

std::string TextStream::flush() { return stopped_ ? std::string() : take(/*final=*/true); }

}  // namespace llm::serve
