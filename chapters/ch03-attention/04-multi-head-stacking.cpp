// Lesson 3.6.1: multi-head attention by stacking independent causal-attention heads.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/causal_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/attention/simplified.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-04-multi-head-stacking", "num_heads CausalAttention heads, concatenated");
  llm::add_attention_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args);
    llm::MultiAttentionStacking stacked(o);
    stacked->to(device);
    const auto x = llm::attention_input({args["batch-size"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    const auto out = stacked->forward(x);  // [b, t, num_heads * d_out]
    fmt::print("{} heads of width {}:\n{}\ncontext_vecs.shape: {}\n", o.num_heads(), o.d_out(), llm::show(out),
               llm::torch_size(out));
    fmt::print("Parameters: {}\n", llm::parameter_count(*stacked));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(
          args["save-outputs"].as<std::string>(),
          llm::record_attention_run("multi_attention_stacking", llm::cli::seed(args), o, stacked, x, out));
    }
  });
}
