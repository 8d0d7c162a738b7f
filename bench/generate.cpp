// Greedy generation speed with and without the KV cache: one JSON line each, for
// scripts/bench/generate.sh.
#include <fmt/format.h>

#include <chrono>

#include "llm/model/generate.h"
#include "llm/model/gpt_config.h"
#include "llm/model/gpt_model.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "profile.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-generate", "Tokens/s of greedy generation, uncached and with a KV cache");
  options.add_options()("config", "Model config", cxxopts::value<std::string>()->default_value(
                                                      llm::config_file("gpt2-small.json").string()))(
      "new-tokens", "Tokens to generate", cxxopts::value<int64_t>()->default_value("200"))(
      "profile", "Print where cached generation's time goes (the top ops) instead")(
      "by-shape", "With --profile, ops with different input shapes apart");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    llm::GPTModel model(llm::load_gpt_config(args["config"].as<std::string>()));
    model->to(llm::cli::device(args));
    model->eval();
    const int64_t new_tokens = args["new-tokens"].as<int64_t>();
    const auto prompt = torch::tensor({{15496, 11, 314, 716}}, torch::kLong);  // "Hello, I am"
    llm::generate(*model, prompt, llm::SamplingOptions(5));                      // warm-up
    if (args.count("profile") != 0) {
      llm::bench::print_profile(
          llm::bench::profile_ops([&] { llm::generate(*model, prompt, llm::SamplingOptions(new_tokens)); },
                                  args.count("by-shape") > 0),
          25);
      return;
    }
    for (const bool cached : {false, true}) {
      const auto start = std::chrono::steady_clock::now();
      const auto out = llm::generate(*model, prompt, llm::SamplingOptions(new_tokens).kv_cache(cached));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print(R"json({{"variant": "{}", "tokens_per_second": {:.2f}, "ids": {}, "threads": {}}})json" "\n",
                 cached ? "kv-cache" : "uncached", static_cast<double>(new_tokens) / seconds, llm::show_ids(out),
                 torch::get_num_threads());
    }
  });
}
