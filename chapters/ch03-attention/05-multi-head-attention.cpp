// Lesson 3.6.2: multi-head attention by splitting one projection into heads.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/attention/simplified.h"
#include "llm/reference/recording.h"

namespace {

// The lesson's note on the output dimensions: a batched matrix product over heads
// [b, heads, t, head_dim] @ [b, heads, head_dim, t] is each head's product on its own.
void heads_note() {
  const auto a = torch::tensor({0.2745, 0.6584, 0.2775, 0.8573, 0.8993, 0.0390, 0.9268, 0.7388, 0.7179, 0.7058,
                                0.9156, 0.4340, 0.0772, 0.3565, 0.1479, 0.5331, 0.4066, 0.2318, 0.4545, 0.9737,
                                0.4606, 0.5159, 0.4220, 0.5786}, torch::kFloat)
                     .view({1, 2, 3, 4});  // (b, num_heads, num_tokens, head_dim)
  fmt::print("{}\n", llm::show(a.matmul(a.transpose(2, 3))));
  const auto first_head = a[0][0], second_head = a[0][1];
  fmt::print("First head:\n {}\n\nSecond head:\n {}\n", llm::show(first_head.matmul(first_head.t())),
             llm::show(second_head.matmul(second_head.t())));
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-05-multi-head-attention", "Multi-head attention with weight splitting");
  llm::add_attention_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args, /*split_heads=*/true);
    llm::MultiHeadAttention mha(o);
    mha->to(device);
    const auto x = llm::attention_input({args["batch-size"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    const auto out = mha->forward(x);  // [b, t, d_out]
    fmt::print("{} heads of width {} (d_out {}):\n{}\ncontext_vecs.shape: {}\n", o.num_heads(),
               o.d_out() / o.num_heads(), o.d_out(), llm::show(out), llm::torch_size(out));
    fmt::print("Parameters: {}\n", llm::parameter_count(*mha));
    heads_note();
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        llm::record_attention_run("multi_head_attention", llm::cli::seed(args), o, mha, x, out));
    }
  });
}
