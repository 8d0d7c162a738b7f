#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "llm/model/language_model.h"
#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// Every layer's and every head's attention weights for one prompt: what the
/// attention-head explorer (ch03-07-attention-heads) draws.
struct AttentionMaps {
  std::vector<int64_t> ids;         // the prompt's token ids
  std::vector<std::string> tokens;  // each token's text, valid UTF-8 (a split character shows as U+FFFD)
  torch::Tensor weights;            // [n_layers, n_heads, t, t] float on the CPU; row i: what token i attends to
  int64_t kv_groups = 0;            // key/value heads per layer: n_heads unless grouped-query attention
  std::string model;                // what the weights are, in words ("the checkpoint 'X'", "untrained ...")

  int64_t layers() const { return weights.size(0); }
  int64_t heads() const { return weights.size(1); }
  /// The key/value group that query head `head` reads: n_heads / kv_groups
  /// consecutive query heads share one (each its own without grouping).
  int64_t kv_group(int64_t head) const { return head / (heads() / kv_groups); }
};

/// `prompt`'s tokens and attention weights under `model`. An empty prompt, or one
/// longer than the context, is an llm::Error.
AttentionMaps record_attention_maps(LanguageModelImpl& model, const BpeTokenizer& tokenizer, const std::string& prompt,
                                    std::string model_label);

/// What one head does with its weights [t, t], over the tokens that have a choice
/// (all but the first, which can only attend to itself).
struct HeadSummary {
  struct Link {
    int64_t from, to;  // token `from` attends to the earlier token `to`
    double weight;
  };
  double entropy = 0;         // a row's entropy in bits, on average: 0 looks at one token
  double mean_distance = 0;   // how many tokens back it looks, on average (sum_j w_ij (i - j))
  double previous_token = 0;  // the average weight on the token just before
  double first_token = 0;     // the average weight on the first token
  std::vector<Link> strongest;  // the largest weights on an earlier token (to < from), largest first
};

HeadSummary summarize_head(const torch::Tensor& weights, int64_t links = 3);

/// The maps as one JSON object (tokens, weights per layer and head, key/value groups,
/// each head's summary, the model's description), safe to put inside an HTML
/// <script> element: '<', '>' and '&' are written as \u escapes.
std::string attention_maps_json(const AttentionMaps& maps);

}  // namespace llm
