// Lesson 3.6.2: multi-head attention by splitting one projection into heads.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-05-multi-head-attention", "Multi-head attention with weight splitting");
  llm::add_attention_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args);
    llm::MultiHeadAttention mha(o);
    mha->to(device);
    const auto x = llm::attention_input({args["batch"].as<int64_t>(), o.context_length(), o.d_in()}).to(device);
    const auto out = mha->forward(x);  // [b, t, d_out]
    fmt::print("{} heads of width {} (d_out {}): output {}\n{}\n", o.num_heads(), o.d_out() / o.num_heads(),
               o.d_out(), llm::shape(out), llm::show(out));
    fmt::print("Parameters: {}\n", llm::parameter_count(*mha));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        llm::record_attention_run("multi_head_attention", llm::cli::seed(args), o, mha, x, out));
    }
  });
}
