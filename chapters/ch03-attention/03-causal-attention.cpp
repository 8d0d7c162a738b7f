// Lesson 3.5: causal attention. 3.5.1 hides the future from the attention weights of
// 3.4.2's SelfAttention_v2, first with a 0/1 mask and renormalising, then with a -inf
// mask before softmax; 3.5.2 drops weights with dropout; 3.5.3 puts it all into the
// batched CausalAttention class. Seeds are the lesson's: 789 for SelfAttention_v2, 123
// before each dropout demo, --seed (123) for CausalAttention.
#include <fmt/format.h>

#include "llm/attention/causal_attention.h"
#include "llm/attention/self_attention.h"
#include "llm/attention/simplified.h"
#include "llm/cli/attention_flags.h"
#include "llm/cli/cli.h"
#include "llm/reference/recording.h"
#include "llm/util/show.h"

namespace {

// 3.5.1 and 3.5.2 on the lesson's sentence.
void masking_demo() {
  const auto inputs = llm::journey_inputs();  // [6, 3]
  torch::manual_seed(789);
  llm::SelfAttentionV2 sa_v2(llm::AttentionOptions(3, 2));
  const auto queries = sa_v2->W_query(inputs), keys = sa_v2->W_key(inputs);  // [6, 2]
  const auto attn_scores = queries.matmul(keys.t());                          // [6, 6]
  const double scale = std::sqrt(static_cast<double>(keys.size(-1)));
  auto attn_weights = torch::softmax(attn_scores / scale, -1);
  fmt::print("{}\n", llm::show(attn_weights));

  const int64_t context_length = attn_scores.size(0);
  const auto mask_simple = torch::tril(torch::ones({context_length, context_length}));
  fmt::print("{}\n", llm::show(mask_simple));
  const auto masked_simple = attn_weights * mask_simple;
  fmt::print("{}\n", llm::show(masked_simple));
  fmt::print("{}\n", llm::show(masked_simple / masked_simple.sum(-1, /*keepdim=*/true)));

  const auto mask = torch::triu(torch::ones({context_length, context_length}), /*diagonal=*/1);
  const auto masked = attn_scores.masked_fill(mask.to(torch::kBool), -std::numeric_limits<double>::infinity());
  fmt::print("{}\n", llm::show(masked));
  attn_weights = torch::softmax(masked / scale, -1);
  fmt::print("{}\n", llm::show(attn_weights));

  torch::nn::Dropout dropout(0.5);  // kept entries are scaled by 1 / (1 - 0.5) = 2
  torch::manual_seed(123);
  fmt::print("{}\n", llm::show(dropout(torch::ones({6, 6}))));
  torch::manual_seed(123);
  fmt::print("{}\n", llm::show(dropout(attn_weights)));
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-03-causal-attention", "Causal attention: masks, dropout, and the batched class");
  llm::AttentionFlagDefaults one_head;
  one_head.heads = false;  // sections 3.3-3.5: one head, no --num-heads
  llm::add_attention_flags(options, one_head);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args, /*split_heads=*/false, /*one_head=*/true);
    masking_demo();

    // 3.5.3: a batch of inputs through the CausalAttention class.
    torch::manual_seed(llm::cli::seed(args));
    llm::CausalAttention ca(o);
    ca->to(device);
    const auto batch = llm::attention_input({args["batch-size"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    fmt::print("torch.Size({})\n", llm::shape(batch));
    const auto context_vecs = ca->forward(batch);  // [b, t, d_out]
    fmt::print("{}\ncontext_vecs.shape: torch.Size({})\n", llm::show(context_vecs), llm::shape(context_vecs));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        llm::record_attention_run("causal_attention", llm::cli::seed(args), o, ca, batch, context_vecs));
    }
  });
}
