#include "llm/serve/prompt_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "llm/text/token_corpus.h"
#include "llm/util/error.h"

namespace llm::serve {

const std::vector<std::string_view>& PromptFormat::names() {
  static const std::vector<std::string_view> kNames = {"text", "alpaca", "phi3", "qwen3", "llama3", "gemma3"};
  return kNames;
}

PromptFormat PromptFormat::named(std::string_view name) {
  if (std::find(names().begin(), names().end(), name) == names().end()) {
    throw Error(fmt::format("chat format '{}': expected one of {}", name, fmt::join(names(), ", ")));
  }
  PromptFormat format;
  format.name_ = std::string(name);
  if (name == "alpaca" || name == "phi3") {
    format.style_ = parse_prompt_style(name);
  } else if (name != "text") {
    format.chat_ = chat_format_named(name);
  }
  return format;
}

std::string PromptFormat::text_prompt(const std::vector<ChatMessage>& messages) const {
  std::string prompt;
  const auto separate = [&](std::string_view separator) {
    if (!prompt.empty()) prompt += separator;
  };
  for (size_t i = 0; i < messages.size(); ++i) {
    const auto& message = messages[i];
    if (!style_ || message.role == "system") {
      separate(style_ ? "\n\n" : "\n");
      prompt += message.content;
    } else if (message.role == "user") {
      separate("\n\n");
      // An instruction is answered by the assistant's turn after it, or by the model.
      InstructionEntry entry{message.content, "", "", std::nullopt};
      const bool answered = i + 1 < messages.size() && messages[i + 1].role == "assistant";
      if (answered) entry.output = messages[i + 1].content;
      prompt += format_input(entry, *style_) + format_response(entry, *style_);
      if (answered) ++i;
    }
    // An assistant turn with no instruction before it has nothing to answer: left out.
  }
  return prompt;
}

std::vector<int64_t> PromptFormat::chat_ids(const BpeTokenizer& tokenizer, const std::vector<ChatMessage>& messages,
                                            bool think) const {
  if (chat_) {
    ChatOptions options;
    options.thinking = think;
    return encode_chat(tokenizer, *chat_, messages, options);
  }
  return raw_ids(tokenizer, text_prompt(messages));
}

std::vector<int64_t> PromptFormat::raw_ids(const BpeTokenizer& tokenizer, const std::string& text) {
  return tokenizer.encode(text, end_of_text_allowed(tokenizer));
}

std::vector<int64_t> PromptFormat::stop_ids(const BpeTokenizer& tokenizer) const {
  std::vector<int64_t> ids;
  if (chat_) ids = chat_stop_ids(tokenizer, *chat_);
  for (const auto& token : end_of_text_allowed(tokenizer)) {
    const auto id = tokenizer.encode(token, {token});
    if (id.size() == 1 && std::find(ids.begin(), ids.end(), id[0]) == ids.end()) ids.push_back(id[0]);
  }
  return ids;
}

}  // namespace llm::serve
