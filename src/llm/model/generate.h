#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>

#include "llm/model/language_model.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/instruction_data.h"

namespace llm {

/// Lesson 5.1's helpers: text -> [1, n] ids (<|endoftext|> allowed where the vocabulary has it),
/// text, as tiktoken decodes them (bytes that are not UTF-8 become U+FFFD); ids past the
/// tokenizer's last token, which a model whose vocabulary is padded (Qwen3's 151,936 rows
/// for 151,669 tokens) can pick, decode to nothing, as Hugging Face's decode skips them.
torch::Tensor text_to_token_ids(const BpeTokenizer& tokenizer, const std::string& text);
std::string token_ids_to_text(const BpeTokenizer& tokenizer, const torch::Tensor& ids);

/// Lesson 4.7: greedy generation. Appends max_new_tokens ids to each row of `idx`
/// ([b, t], int64), each the argmax of the logits at the last position, with the
/// context cropped to its last `context_size` tokens. Runs without autograd; the
/// caller chooses eval or train mode. Returns [b, t + max_new_tokens], or fewer new
/// tokens when a stop was requested (StopOnSignal) meanwhile.
torch::Tensor generate_text_simple(LanguageModelImpl& model, torch::Tensor idx, int64_t max_new_tokens, int64_t context_size);

/// How generate() picks each next token.
struct SamplingOptions {
  SamplingOptions(int64_t max_new_tokens = 50) : max_new_tokens_(max_new_tokens) {}  // NOLINT: implicit like LibTorch's
  /// Throws llm::Error naming the first impossible value.
  void validate() const;

  /// Tokens to append at most.
  TORCH_ARG(int64_t, max_new_tokens);
  /// 0 takes the most likely token (greedy); above 0 the logits are divided by it and
  /// the token is drawn from their softmax: below 1 sharper, above 1 flatter.
  TORCH_ARG(double, temperature) = 0.0;
  /// Only the k most likely tokens may be chosen; 0 allows all.
  TORCH_ARG(int64_t, top_k) = 0;
  /// Generation stops, without appending it, when every row's next token is this id.
  TORCH_ARG(std::optional<int64_t>, eos_id) = std::nullopt;
  /// Keep each layer's keys and values (a KVCache) and feed the model only the new
  /// token; the tokens are the same either way, the cache is faster.
  TORCH_ARG(bool, kv_cache) = true;
};

/// generate() one token at a time, for a caller that shows each token as it comes
/// (the server) or stops on its own terms. Keeps the ids so far, on the model's
/// device, and the KV cache when options.kv_cache(). `options` are taken as valid;
/// eos_id is checked against the model's vocabulary.
class TokenGenerator {
 public:
  TokenGenerator(LanguageModelImpl& model, torch::Tensor idx, const SamplingOptions& options);

  /// The next token of each row ([b, 1], appended to ids()), drawn as generate() draws
  /// it; nullopt once max_new_tokens are out, or when every row's next token is eos_id.
  std::optional<torch::Tensor> next();
  /// The prompt and the tokens so far, [b, t + generated()].
  const torch::Tensor& ids() const { return ids_; }
  int64_t generated() const { return generated_; }

 private:
  torch::Tensor next_logits();

  LanguageModelImpl& model_;
  SamplingOptions options_;
  torch::Tensor ids_;
  std::optional<KVCache> cache_;
  int64_t context_size_ = 0;
  int64_t top_k_ = 0;
  int64_t generated_ = 0;
};

/// Lesson 5.3: generation with temperature scaling, top-k and a stop token. Draws
/// come from LibTorch's global generator (torch.multinomial), so the same seed gives
/// the same text here and in PyTorch. Runs without autograd in the model's current
/// mode. `options` are taken as valid (validated where they were built, as
/// sampling_from_flags does); eos_id is checked against the model's vocabulary.
/// Returns [b, t + generated].
torch::Tensor generate(LanguageModelImpl& model, torch::Tensor idx, const SamplingOptions& options);

/// Lesson 7.7: the model's response to an instruction entry. Its prompt (format_input)
/// continued greedily by at most max_new_tokens tokens, stopping at eos_id, decoded,
/// and the response cut from it (extract_response). The caller chooses the mode (the
/// lesson: eval).
std::string generate_response(LanguageModelImpl& model, const BpeTokenizer& tokenizer, const InstructionEntry& entry,
                              PromptStyle style = PromptStyle::kAlpaca, int64_t max_new_tokens = 256,
                              int64_t eos_id = 50256);

}  // namespace llm
