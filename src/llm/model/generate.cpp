#include "llm/model/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include "llm/text/token_corpus.h"
#include "llm/util/error.h"
#include "llm/util/interrupt.h"
#include "llm/util/utf8.h"

namespace llm {

namespace {

void check_prompt(const torch::Tensor& idx) {
  if (idx.dim() != 2 || idx.size(1) == 0) {
    throw Error("generate: the prompt must be [batch, tokens] with at least one token");
  }
}

}  // namespace

torch::Tensor text_to_token_ids(const BpeTokenizer& tokenizer, const std::string& text) {
  return torch::tensor(tokenizer.encode(text, end_of_text_allowed(tokenizer)), torch::kLong).unsqueeze(0);  // [1, n]
}

std::string token_ids_to_text(const BpeTokenizer& tokenizer, const torch::Tensor& ids) {
  const auto flat = ids.flatten().to(torch::kCPU, torch::kLong).contiguous();
  std::vector<int64_t> known;  // a model's rows past its tokenizer's tokens (Qwen3's) decode to nothing
  std::copy_if(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel(), std::back_inserter(known),
               [&](int64_t id) { return id < tokenizer.vocab_size(); });
  // tiktoken's decode(): bytes that are not UTF-8 (a character split across tokens) become U+FFFD.
  return utf8_replace_invalid(tokenizer.decode(known));
}

torch::Tensor generate_text_simple(LanguageModelImpl& model, torch::Tensor idx, int64_t max_new_tokens, int64_t context_size) {
  check_prompt(idx);
  const auto caller_device = idx.device();
  idx = idx.to(model.device());
  if (max_new_tokens < 0) throw Error(fmt::format("generate: max_new_tokens must be >= 0, got {}", max_new_tokens));
  if (context_size <= 0) throw Error(fmt::format("generate: context_size must be positive, got {}", context_size));
  torch::NoGradGuard no_grad;
  // A stop request (Ctrl-C under StopOnSignal) ends a long generation early: the
  // caller gets the tokens so far and can save its work.
  for (int64_t i = 0; i < max_new_tokens && !StopOnSignal::requested(); ++i) {
    const auto context = idx.slice(1, std::max<int64_t>(0, idx.size(1) - context_size));  // [b, <= context_size]
    const auto logits = model.forward(context).select(1, -1);                              // [b, vocab_size]
    const auto next = torch::softmax(logits, -1).argmax(-1, /*keepdim=*/true);              // [b, 1]
    idx = torch::cat({idx, next}, 1);                                                       // [b, t + 1]
  }
  return idx.to(caller_device);
}

void SamplingOptions::validate() const {
  if (max_new_tokens_ < 0) throw Error(fmt::format("max_new_tokens must be >= 0, got {}", max_new_tokens_));
  if (!(temperature_ >= 0.0) || !std::isfinite(temperature_)) {
    throw Error(fmt::format("temperature must be a finite number >= 0, got {}", temperature_));
  }
  // Below this, logits / temperature overflows float32 (or the temperature itself
  // rounds to 0 in float32), and softmax gives NaN: greedy is what such a temperature means.
  constexpr double kMinTemperature = 1e-30;
  if (temperature_ > 0.0 && temperature_ < kMinTemperature) {
    throw Error(fmt::format("temperature must be 0 (greedy) or at least {}, got {}", kMinTemperature, temperature_));
  }
  if (top_k_ < 0) throw Error(fmt::format("top_k must be >= 0, got {}", top_k_));
}

TokenGenerator::TokenGenerator(LanguageModelImpl& model, torch::Tensor idx, const SamplingOptions& options)
    : model_(model), options_(options) {
  check_prompt(idx);
  ids_ = idx.to(model.device());
  const int64_t vocab_size = model.shape().vocab_size;
  if (options.eos_id() && (*options.eos_id() < 0 || *options.eos_id() >= vocab_size)) {
    throw Error(fmt::format("eos_id must be a token id below the vocabulary size {}, got {}", vocab_size,
                            *options.eos_id()));
  }
  // The lesson passes the model's context length as context_size.
  context_size_ = model.shape().context_length;
  top_k_ = std::min(options.top_k(), vocab_size);
  if (options.kv_cache()) cache_.emplace(model.new_cache());
}

// The logits of the token after ids_, from their last context_size tokens. With a
// cache the model sees only the tokens it has not cached; once the window slides,
// positions shift and the cache starts over on the window, as uncached generation
// recomputes it.
torch::Tensor TokenGenerator::next_logits() {
  const int64_t n = ids_.size(1);
  if (!cache_) return model_.forward(ids_.slice(1, std::max<int64_t>(0, n - context_size_))).select(1, -1);
  if (n > context_size_) {
    cache_->clear();
    return model_.forward_cached(ids_.slice(1, n - context_size_), *cache_).select(1, -1);
  }
  return model_.forward_cached(ids_.slice(1, cache_->length()), *cache_).select(1, -1);  // [b, vocab_size]
}

std::optional<torch::Tensor> TokenGenerator::next() {
  if (generated_ >= options_.max_new_tokens()) return std::nullopt;
  torch::NoGradGuard no_grad;
  auto logits = next_logits();  // [b, vocab_size]
  if (top_k_ > 0) {
    const auto kth = std::get<0>(torch::topk(logits, top_k_)).select(1, -1).unsqueeze(1);  // [b, 1]
    logits = logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
  }
  torch::Tensor next;  // [b, 1]
  if (options_.temperature() > 0.0) {
    next = torch::multinomial(torch::softmax(logits / options_.temperature(), -1), 1);
  } else {
    next = logits.argmax(-1, /*keepdim=*/true);
  }
  if (options_.eos_id() && (next == *options_.eos_id()).all().item<bool>()) return std::nullopt;
  ids_ = torch::cat({ids_, next}, 1);  // [b, t + 1]
  ++generated_;
  return next;
}

torch::Tensor generate(LanguageModelImpl& model, torch::Tensor idx, const SamplingOptions& options) {
  const auto caller_device = idx.device();
  TokenGenerator generator(model, std::move(idx), options);
  while (!StopOnSignal::requested() && generator.next()) {
  }
  return generator.ids().to(caller_device);
}

}  // namespace llm

namespace llm {

std::string generate_response(LanguageModelImpl& model, const BpeTokenizer& tokenizer, const InstructionEntry& entry,
                              PromptStyle style, int64_t max_new_tokens, int64_t eos_id) {
  const auto input_text = format_input(entry, style);
  const auto ids = generate(model, text_to_token_ids(tokenizer, input_text),
                            SamplingOptions(max_new_tokens).eos_id(eos_id));
  return extract_response(token_ids_to_text(tokenizer, ids), input_text, style);
}

}  // namespace llm
