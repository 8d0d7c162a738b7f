#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/chat_format.h"
#include "llm/text/instruction_data.h"

namespace llm::serve {

/// How the server turns a conversation into a model's prompt: the format the model
/// was trained on.
/// - "text": a pretrained model (chapter 5) continues the turns' texts, each on its own line;
/// - "alpaca", "phi3": a chapter-7 model's prompt styles, one instruction per user turn
///   and its response after it, turns apart by a blank line (the system text first);
/// - "qwen3", "llama3", "gemma3": the chat templates of the newer families (encode_chat).
class PromptFormat {
 public:
  /// `name` is one of prompt_format_names(); an llm::Error otherwise.
  static PromptFormat named(std::string_view name);
  static const std::vector<std::string_view>& names();

  std::string_view name() const { return name_; }

  /// The ids of a conversation that ends with the user's turn, ready for the
  /// assistant's. `think`: Qwen3's thinking block is left open.
  std::vector<int64_t> chat_ids(const BpeTokenizer& tokenizer, const std::vector<ChatMessage>& messages, bool think) const;
  /// The ids of a text as it is (<|endoftext|> allowed where the vocabulary has it).
  static std::vector<int64_t> raw_ids(const BpeTokenizer& tokenizer, const std::string& text);
  /// The ids that end an answer: the chat format's end of turn, and the end-of-text
  /// token of a tokenizer that has one.
  std::vector<int64_t> stop_ids(const BpeTokenizer& tokenizer) const;

 private:
  std::string text_prompt(const std::vector<ChatMessage>& messages) const;

  std::string name_;
  std::optional<ChatFormat> chat_;
  std::optional<PromptStyle> style_;
};

}  // namespace llm::serve
