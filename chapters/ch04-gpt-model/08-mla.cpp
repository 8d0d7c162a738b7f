// Chapter 4's bonus on multi-head latent attention (ch04/05_mla, gpt_with_kv_mla.py):
// the GPT with MLA, whose KV cache keeps each token's latent instead of its keys and
// values, built after seed 123 in bfloat16 as the script builds it, continues "Hello,
// I am" greedily through the cache. It prints what the script prints; the course's
// CUDA "Max memory allocated" is the process's peak resident memory here.
#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-08-mla", "The GPT with multi-head latent attention and its latent KV cache");
  llm::cli::add_course_script_flags(options);
  llm::cli::add_course_variant_flags(options, "mla");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::cli::course_script_config(args, "mla");
    llm::cli::run_course_script(config, args);
  });
}
