#include "llm/model/classifier.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

ClassToken parse_class_token(std::string_view name) {
  if (name == "last") return ClassToken::kLast;
  if (name == "first") return ClassToken::kFirst;
  throw Error(fmt::format("class_token must be \"last\" or \"first\", got \"{}\"", name));
}

void make_classifier(LanguageModelImpl& model, int64_t num_classes, std::string_view trainable) {
  if (trainable != "last-block" && trainable != "head" && trainable != "all") {
    throw Error(fmt::format("trainable must be \"last-block\", \"head\" or \"all\", got \"{}\"", trainable));
  }
  if (num_classes < 2) throw Error(fmt::format("a classifier needs at least 2 classes, got {}", num_classes));
  for (auto& parameter : model.parameters()) parameter.set_requires_grad(trainable == "all");
  const auto device = model.device();
  Linear head(model.shape().emb_dim, num_classes);  // trains
  head->to(device);
  model.replace_head(head);
  if (trainable == "last-block") {
    for (const auto& module : model.last_block_and_final_norm()) {
      for (auto& parameter : module->parameters()) parameter.set_requires_grad(true);
    }
  }
}

int64_t trainable_parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& parameter : module.parameters()) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  return count;
}

torch::Tensor class_logits(LanguageModelImpl& model, const torch::Tensor& ids, ClassToken token) {
  const auto hidden = model.forward_hidden(ids);                          // [b, t, emb_dim]
  const auto at = hidden.select(1, token == ClassToken::kLast ? -1 : 0);  // [b, emb_dim]
  return model.head()(at);                                                // [b, num_classes]
}

torch::Tensor review_logits(LanguageModelImpl& model, const BpeTokenizer& tokenizer, std::string_view text,
                            int64_t max_length, ClassToken token, int64_t pad_token_id) {
  if (const int64_t context = model.shape().context_length; max_length < 1 || max_length > context) {
    throw Error(fmt::format("max_length ({}) must be in 1..{}, the model's context_length", max_length, context));
  }
  auto ids = tokenizer.encode(text);
  ids.resize(static_cast<size_t>(max_length), pad_token_id);  // cut, or padded
  model.eval();
  torch::NoGradGuard no_grad;
  const auto input = torch::tensor(ids, torch::kLong).unsqueeze(0).to(model.device());  // [1, max_length]
  return class_logits(model, input, token).squeeze(0);                                  // [num_classes]
}

int64_t classify_review(LanguageModelImpl& model, const BpeTokenizer& tokenizer, std::string_view text, int64_t max_length,
                        ClassToken token, int64_t pad_token_id) {
  return review_logits(model, tokenizer, text, max_length, token, pad_token_id).argmax(-1).item<int64_t>();
}

}  // namespace llm
