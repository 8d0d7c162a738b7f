// Chapter 4's bonus on mixture of experts (ch04/07_moe, gpt_with_kv_moe.py): the GPT
// whose feed-forward is --num-experts SwiGLU experts of --hidden-dim, of which a
// router picks --num-experts-per-tok for every token, generated ones included; with
// --num-experts 0 (the script's default) the lesson's feed-forward, --hidden-dim wide.
// Built after seed 123 in bfloat16 as the script builds it, it continues "Hello, I am"
// greedily and prints what the script prints, the feed-forward's average time per
// call among it; the course's CUDA "Max memory allocated" is the process's peak
// resident memory here.
#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-10-moe", "The GPT with a mixture-of-experts feed-forward");
  llm::cli::add_course_script_flags(options);
  options.add_options("Model (the course's script's flags)")(
      "hidden-dim", "Intermediate FFN or MoE size", cxxopts::value<int64_t>()->default_value("3072"), "N")(
      "no-kv-cache", "Disable KV caching during generation")(
      "num-experts", "Number of experts. If 0, use dense FFN. If >0, use MoE",
      cxxopts::value<int64_t>()->default_value("0"), "N")(
      "num-experts-per-tok", "Top-k experts per token when using MoE (ignored if num-experts is 0)",
      cxxopts::value<int64_t>()->default_value("2"), "K");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::cli::course_script_config(args, [&](llm::GPTConfig& c) {
      c.hidden_dim = args["hidden-dim"].as<int64_t>();
      c.num_experts = args["num-experts"].as<int64_t>();
      if (*c.num_experts > 0) c.num_experts_per_tok = args["num-experts-per-tok"].as<int64_t>();
    });
    llm::cli::run_course_script(config, args, /*kv_cache=*/args.count("no-kv-cache") == 0, "Avg MoE FF time/call");
  });
}
