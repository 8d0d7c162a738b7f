// Chapter 4's bonus on sliding-window attention (ch04/06_swa, gpt_with_kv_swa.py): the
// GPT in which K of every K + 1 blocks (--sliding-window-stride) attend only to the
// last --sliding-window-size positions, so that their KV cache is a rolling window.
// Built after seed 123 in bfloat16 as the script builds it, it continues "Hello, I am"
// greedily through the cache and prints what the script prints; the course's CUDA
// "Max memory allocated" is the process's peak resident memory here.

#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options =
      llm::cli::options("ch04-09-sliding-window", "The GPT with sliding-window attention and its rolling KV cache");
  llm::cli::add_course_script_flags(options);
  llm::cli::add_course_variant_flags(options, "swa");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::cli::course_script_config(args, "swa");
    llm::cli::run_course_script(config, args);
  });
}
