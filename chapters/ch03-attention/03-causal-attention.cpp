// Lesson 3.5: causal attention hides future tokens (a -inf mask before softmax) and
// drops attention weights while training.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/causal_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-03-causal-attention", "Causal self-attention with dropout, batched");
  llm::add_attention_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args);
    llm::CausalAttention attention(o);
    attention->to(device);
    const auto x = llm::attention_input({args["batch"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    const auto out = attention->forward(x);  // [b, t, d_out]
    fmt::print("Mask (1 = hidden future position):\n{}\n", llm::show(attention->mask));
    fmt::print("Attention weights of the first input (dropout {}):\n{}\n", o.dropout(),
               llm::show(attention->last_weights[0]));
    fmt::print("Context vectors: {}\n{}\n", llm::shape(out), llm::show(out));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        llm::record_attention_run("causal_attention", llm::cli::seed(args), o, attention, x, out));
    }
    // Dropout on its own: about half of the entries are zeroed, the rest scaled by 2.
    torch::nn::Dropout dropout(0.5);
    fmt::print("\nDropout(0.5) of a 6x6 matrix of ones:\n{}\n", llm::show(dropout(torch::ones({6, 6}, device))));
  });
}
