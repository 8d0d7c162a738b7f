// Chapter 4's bonus on sliding-window attention (ch04/06_swa, gpt_with_kv_swa.py): the
// GPT in which K of every K + 1 blocks (--sliding-window-stride) attend only to the
// last --sliding-window-size positions, so that their KV cache is a rolling window.
// Built after seed 123 in bfloat16 as the script builds it, it continues "Hello, I am"
// greedily through the cache and prints what the script prints; the course's CUDA
// "Max memory allocated" is the process's peak resident memory here.
#include <algorithm>

#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options =
      llm::cli::options("ch04-09-sliding-window", "The GPT with sliding-window attention and its rolling KV cache");
  llm::cli::add_course_script_flags(options);
  options.add_options("Model (the course's script's flags)")(
      "sliding-window-size",
      "Window size for sliding window attention (default: the script's 1024, or the whole context when shorter)",
      cxxopts::value<int64_t>(), "N")(
      "sliding-window-stride",
      "K:1 frequency sliding window attention is applied: K sliding-window layers followed by a regular layer "
      "(0: none, negative: all)",
      cxxopts::value<int64_t>()->default_value("2"), "K");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::cli::course_script_config(args, [&](llm::GPTConfig& c) {
      c.attention = "swa";
      c.sliding_window_size = args.count("sliding-window-size") != 0 ? args["sliding-window-size"].as<int64_t>()
                                                                     : std::min<int64_t>(1024, c.context_length);
      c.sliding_window_stride = args["sliding-window-stride"].as<int64_t>();
    });
    llm::cli::run_course_script(config, args);
  });
}
