#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// One turn of a conversation: "system", "user" or "assistant", and its text.
struct ChatMessage {
  std::string role;
  std::string content;
};

/// How a model family wraps a conversation into tokens, as the course's tokenizer
/// classes do it:
/// - kQwen3: Qwen3Tokenizer's chat template, "<|im_start|>ROLE\nTEXT<|im_end|>\n" per
///   turn; the generation prompt "<|im_start|>assistant\n", followed by an empty
///   "<think>\n\n</think>\n\n" unless the model is to think;
/// - kLlama3: ChatFormat, "<|begin_of_text|>", then per turn a header
///   "<|start_header_id|>ROLE<|end_header_id|>\n\n", the text and "<|eot_id|>", a
///   system turn ("You are a helpful assistant.") first when the conversation has
///   none; the generation prompt is the assistant's header;
/// - kGemma3: GemmaTokenizer.apply_chat_template, then its encode, which puts <bos>
///   first: "<start_of_turn>ROLE\nTEXT<end_of_turn>\n" per turn (the assistant's role
///   is "model"); the generation prompt "<start_of_turn>model\n".
enum class ChatFormat { kQwen3, kLlama3, kGemma3 };

struct ChatOptions {
  /// End with the start of the assistant's turn, for the model to continue.
  bool generation_prompt = true;
  /// Qwen3: leave the thinking block open for the model to fill.
  bool thinking = false;
};

/// "qwen3", "llama3" or "gemma3" (a family's name: "llama32" is Llama 3's format).
ChatFormat chat_format_named(std::string_view name);
const std::vector<std::string_view>& chat_format_names();

/// The conversation's token ids: the format's special tokens by id, and every text
/// between them encoded by itself (no token spans a special token). A message that
/// holds a special token's text gets that token, as the course's classes (Hugging
/// Face's tokenizers) give it; a role other than system, user or assistant is an
/// error, and so is a tokenizer without the format's special tokens.
std::vector<int64_t> encode_chat(const BpeTokenizer& tokenizer, ChatFormat format,
                                 const std::vector<ChatMessage>& messages, const ChatOptions& options = {});

/// The ids that end an assistant's turn in this format, for generation to stop at.
std::vector<int64_t> chat_stop_ids(const BpeTokenizer& tokenizer, ChatFormat format);

}  // namespace llm
