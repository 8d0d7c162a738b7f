#include "llm/text/chat_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <initializer_list>

#include "llm/util/error.h"

namespace llm {
namespace {

struct FormatEntry {
  std::string_view name;
  ChatFormat format;
};

constexpr std::array<FormatEntry, 4> kFormats{{
    {"qwen3", ChatFormat::kQwen3},
    {"llama3", ChatFormat::kLlama3},
    {"llama32", ChatFormat::kLlama3},
    {"gemma3", ChatFormat::kGemma3},
}};

std::string_view format_name(ChatFormat format) {
  for (const auto& entry : kFormats) {
    if (entry.format == format) return entry.name;
  }
  return "?";
}

// The ids of a format's special tokens, each looked up once, with an error naming the
// token a tokenizer lacks.
class Specials {
 public:
  Specials(const BpeTokenizer& tokenizer, ChatFormat format) : tokenizer_(tokenizer), format_(format) {}

  /// Checks that the tokenizer has each of `names`, before text that holds them is encoded.
  void require(std::initializer_list<std::string_view> names) const {
    for (const auto name : names) (*this)(name);
  }

  int64_t operator()(std::string_view name) const {
    if (const auto id = tokenizer_.special_token(name)) return *id;
    throw Error(fmt::format("the {} chat format needs the special token '{}', which the tokenizer does not have",
                            format_name(format_), name));
  }

 private:
  const BpeTokenizer& tokenizer_;
  ChatFormat format_;
};

const std::string kGemmaAssistant = "model";  // Gemma's name for the assistant's role

void append(std::vector<int64_t>& ids, const std::vector<int64_t>& more) { ids.insert(ids.end(), more.begin(), more.end()); }

// Qwen3Tokenizer and GemmaTokenizer build the conversation as text and encode it
// whole; the special tokens in it are added tokens, which cut the text before any
// merging, so each stretch between them is encoded by itself.
std::vector<int64_t> encode_text_template(const BpeTokenizer& tokenizer, ChatFormat format,
                                          const std::vector<ChatMessage>& messages, const ChatOptions& options) {
  const Specials special(tokenizer, format);
  std::string text;
  if (format == ChatFormat::kQwen3) {
    special.require({"<|im_start|>", "<|im_end|>", "<think>", "</think>"});
    for (const auto& message : messages) text += fmt::format("<|im_start|>{}\n{}<|im_end|>\n", message.role, message.content);
    if (options.generation_prompt) {
      text += "<|im_start|>assistant\n";
      if (!options.thinking) text += "<think>\n\n</think>\n\n";
    }
  } else {
    special.require({"<bos>", "<start_of_turn>", "<end_of_turn>"});
    text = "<bos>";  // what GemmaTokenizer.encode adds (its tokenizer.json's post-processor)
    for (const auto& message : messages) {
      const std::string& role = message.role == "assistant" ? kGemmaAssistant : message.role;
      text += fmt::format("<start_of_turn>{}\n{}<end_of_turn>\n", role, message.content);
    }
    if (options.generation_prompt) text += "<start_of_turn>model\n";
  }
  return tokenizer.encode(text);
}

// Llama 3's ChatFormat encodes each piece by itself: the role, the "\n\n" after the
// header, the message.
std::vector<int64_t> encode_llama3(const BpeTokenizer& tokenizer, const std::vector<ChatMessage>& messages,
                                   const ChatOptions& options) {
  const Specials special(tokenizer, ChatFormat::kLlama3);
  const auto header = [&](std::vector<int64_t>& ids, const std::string& role) {
    ids.push_back(special("<|start_header_id|>"));
    append(ids, tokenizer.encode(role));
    ids.push_back(special("<|end_header_id|>"));
    append(ids, tokenizer.encode("\n\n"));
  };
  const auto turn = [&](std::vector<int64_t>& ids, const ChatMessage& message) {
    header(ids, message.role);
    append(ids, tokenizer.encode(message.content));
    ids.push_back(special("<|eot_id|>"));
  };
  std::vector<int64_t> ids{special("<|begin_of_text|>")};
  if (messages.empty() || messages.front().role != "system") turn(ids, {"system", "You are a helpful assistant."});
  for (const auto& message : messages) turn(ids, message);
  if (options.generation_prompt) header(ids, "assistant");
  return ids;
}

}  // namespace

const std::vector<std::string_view>& chat_format_names() {
  static const std::vector<std::string_view> names{"qwen3", "llama3", "gemma3"};
  return names;
}

ChatFormat chat_format_named(std::string_view name) {
  for (const auto& entry : kFormats) {
    if (entry.name == name) return entry.format;
  }
  throw Error(fmt::format("unknown chat format '{}': expected one of {}", name, fmt::join(chat_format_names(), ", ")));
}

std::vector<int64_t> encode_chat(const BpeTokenizer& tokenizer, ChatFormat format,
                                 const std::vector<ChatMessage>& messages, const ChatOptions& options) {
  for (const auto& message : messages) {
    if (message.role != "system" && message.role != "user" && message.role != "assistant") {
      throw Error(fmt::format("chat message role '{}': expected system, user or assistant", message.role));
    }
  }
  if (format == ChatFormat::kLlama3) return encode_llama3(tokenizer, messages, options);
  return encode_text_template(tokenizer, format, messages, options);
}

std::vector<int64_t> chat_stop_ids(const BpeTokenizer& tokenizer, ChatFormat format) {
  const Specials special(tokenizer, format);
  switch (format) {
    case ChatFormat::kQwen3:
      return {special("<|im_end|>"), special("<|endoftext|>")};
    case ChatFormat::kLlama3:
      return {special("<|eot_id|>"), special("<|end_of_text|>")};
    case ChatFormat::kGemma3:
      return {special("<end_of_turn>"), special("<eos>")};
  }
  return {};
}

}  // namespace llm
