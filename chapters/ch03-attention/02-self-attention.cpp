// Lesson 3.4: self-attention with trainable query, key and value weights, scaled by
// sqrt(d_k). 3.4.1 computes the second token's context vector step by step; 3.4.2
// wraps it in SelfAttention_v1 (raw matrices, torch.rand) and SelfAttention_v2
// (Linear layers). The seeds are the lesson's: 123 for the matrices and v1, 789 for v2.
// Exercise 3.1 (--exercise-3-1): v2's weights, transposed, make v1 compute v2's output.
#include <fmt/format.h>

#include "llm/attention/self_attention.h"
#include "llm/cli/attention_flags.h"
#include "llm/cli/cli.h"
#include "llm/attention/simplified.h"
#include "llm/reference/recording.h"
#include "llm/util/show.h"

namespace {

// 3.4.1: the attention of the second input (x_2) over all inputs.
void step_by_step(const torch::Tensor& inputs, int64_t d_out) {
  const int64_t d_in = inputs.size(1);
  const auto x_2 = inputs[1];
  const auto W_query = torch::rand({d_in, d_out}), W_key = torch::rand({d_in, d_out}),
             W_value = torch::rand({d_in, d_out});  // drawn in this order, as in the lesson
  const auto query_2 = x_2.matmul(W_query);         // [d_out]
  fmt::print("{}\n", llm::show(query_2));
  const auto keys = inputs.matmul(W_key), values = inputs.matmul(W_value);  // [t, d_out]
  fmt::print("keys.shape: torch.Size({})\nvalues.shape: torch.Size({})\n", llm::shape(keys), llm::shape(values));
  fmt::print("{}\n", llm::show(query_2.dot(keys[1])));  // attn_score_22
  const auto attn_scores_2 = query_2.matmul(keys.t());  // [t]
  fmt::print("{}\n", llm::show(attn_scores_2));
  const double d_k = static_cast<double>(keys.size(1));
  const auto attn_weights_2 = torch::softmax(attn_scores_2 / std::sqrt(d_k), -1);
  fmt::print("{}\n", llm::show(attn_weights_2));
  fmt::print("{}\n", llm::show(attn_weights_2.matmul(values)));  // context_vec_2
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-02-self-attention", "Self-attention step by step, then SelfAttention_v1 and v2");
  llm::AttentionFlagDefaults one_head;
  one_head.heads = false;  // sections 3.3-3.5: one head, no --num-heads
  llm::add_attention_flags(options, one_head);
  options.add_options()("version", "The module whose run --save-outputs records: 1 or 2",
                        cxxopts::value<int>()->default_value("1"), "N")(
      "v2-seed", "Seed of SelfAttention_v2's weights (the lesson's 789)",
      cxxopts::value<uint64_t>()->default_value("789"), "N")(
      "exercise-3-1", "Then copy SelfAttention_v2's weights, transposed, into v1 and show that v1 gives v2's output");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args, /*split_heads=*/false, /*one_head=*/true);
    const int version = args["version"].as<int>();
    if (version != 1 && version != 2) throw llm::cli::BadFlagValue(fmt::format("--version must be 1 or 2, got {}", version));
    if (args.count("exercise-3-1") != 0 && o.qkv_bias()) {
      throw llm::cli::BadFlagValue("--exercise-3-1 copies weights into v1, which has no bias: drop --qkv-bias");
    }
    const uint64_t seed = llm::cli::seed(args), v2_seed = args["v2-seed"].as<uint64_t>();

    const auto run = [&](auto module, const std::string& kind, uint64_t module_seed, bool record) {
      module->to(device);
      const auto x = llm::attention_input({o.context_length(), o.d_in()}).to(device);  // [t, d_in]
      const auto out = module->forward(x);                                              // [t, d_out]
      fmt::print("{}\n", llm::show(out));
      if (record && args.count("save-outputs") != 0) {
        llm::save_tensors(args["save-outputs"].as<std::string>(),
                          llm::record_attention_run(kind, module_seed, o, module, x, out));
      }
      return out;
    };
    torch::manual_seed(seed);
    step_by_step(llm::attention_input({o.context_length(), o.d_in()}).detach(), o.d_out());
    torch::manual_seed(seed);
    run(llm::SelfAttentionV1(o), "self_attention_v1", seed, version == 1);
    torch::manual_seed(v2_seed);
    llm::SelfAttentionV2 v2(o);
    const auto v2_out = run(v2, "self_attention_v2", v2_seed, version == 2);
    if (args.count("exercise-3-1") != 0) {
      fmt::print("\nExercise 3.1: SelfAttention_v1 with v2's weights (nn.Linear keeps them transposed)\n");
      llm::SelfAttentionV1 v1(o);
      {
        torch::NoGradGuard no_grad;
        v1->W_query.copy_(v2->W_query->weight.t());
        v1->W_key.copy_(v2->W_key->weight.t());
        v1->W_value.copy_(v2->W_value->weight.t());
      }
      const auto v1_out = run(v1, "self_attention_v1", seed, false);
      fmt::print("Same as SelfAttention_v2: {}\n", torch::allclose(v1_out, v2_out) ? "True" : "False");
    }
  });
}
