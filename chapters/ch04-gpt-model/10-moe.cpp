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
  llm::cli::add_course_variant_flags(options, "moe");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::cli::course_script_config(args, "moe");
    llm::cli::run_course_script(config, args, /*kv_cache=*/args.count("no-kv-cache") == 0, "Avg MoE FF time/call");
  });
}
