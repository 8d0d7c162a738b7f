#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "llm/model/language_model.h"
#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// Which token's logits give a text's class: the last (lesson 6.5: the only one that
/// has attended to every token), or the first (exercise 6.3).
enum class ClassToken { kLast, kFirst };

/// "last" or "first" as a ClassToken; an llm::Error for anything else.
ClassToken parse_class_token(std::string_view name);

/// Lesson 6.5: the GPT made a classifier. Every parameter is frozen; out_head becomes
/// Linear(emb_dim, num_classes) with a bias, drawn from the global generator (the
/// lesson seeds it just before: torch.manual_seed(123)); then what `trainable` names
/// trains again: "last-block" (the last transformer block and final_norm, the
/// lesson's choice), "head" (nothing more) or "all" (exercise 6.3). The head trains in
/// every case.
void make_classifier(LanguageModelImpl& model, int64_t num_classes, std::string_view trainable);

/// The parameters that train (requires_grad), as the lesson counts them.
int64_t trainable_parameter_count(const torch::nn::Module& module);

/// The class logits [b, num_classes] of token ids [b, t]: the lesson's
/// model(ids)[:, -1, :], with out_head applied to that one position only.
torch::Tensor class_logits(LanguageModelImpl& model, const torch::Tensor& ids, ClassToken token = ClassToken::kLast);

/// The class logits [num_classes] of one text, as classify_review reads it.
torch::Tensor review_logits(LanguageModelImpl& model, const BpeTokenizer& tokenizer, std::string_view text,
                            int64_t max_length, ClassToken token = ClassToken::kLast, int64_t pad_token_id = 50256);

/// Lesson 6.8's classify_review: the text's ids cut to max_length, padded with
/// pad_token_id to max_length (the length the classifier was trained on), and the class
/// of the largest logit, in eval mode without autograd. A max_length beyond the
/// model's context_length is an llm::Error.
int64_t classify_review(LanguageModelImpl& model, const BpeTokenizer& tokenizer, std::string_view text, int64_t max_length,
                        ClassToken token = ClassToken::kLast, int64_t pad_token_id = 50256);

}  // namespace llm
