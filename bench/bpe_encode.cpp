// BPE encode throughput on one thread: prints one JSON line for scripts/bench/bpe_encode.sh.
#include <fmt/format.h>

#include <chrono>

#include "llm/text/tokenizer_json.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-bpe-encode", "BPE encode throughput (MB/s)");
  options.add_options()("tokenizer", "gpt2, llama3, qwen3, gemma3 or a tokenizer.json file",
                        cxxopts::value<std::string>()->default_value("gpt2"), "NAME|FILE")("data", "Text to encode",
                        cxxopts::value<std::string>()->default_value(llm::data_file("moby-dick.txt")), "FILE")(
      "repeat", "Timed encodes of the whole text (the best is reported)", cxxopts::value<int>()->default_value("5"),
      "N");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto tokenizer = llm::tokenizer_named(args["tokenizer"].as<std::string>());
    const std::string text = llm::read_text_file(args["data"].as<std::string>());
    size_t tokens = tokenizer.encode(text).size();  // warm-up
    double best = 1e300;
    for (int i = 0; i < args["repeat"].as<int>(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      tokens = tokenizer.encode(text).size();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    fmt::print(R"json({{"name": "libtorch-llm (C++)", "tokens": {}, "seconds": {:.4f}, "mb_per_s": {:.3f}}})json" "\n", tokens,
               best, static_cast<double>(text.size()) / 1e6 / best);
  });
}
