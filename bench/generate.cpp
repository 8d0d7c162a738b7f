// Greedy generation speed with and without the KV cache: one JSON line each, for
// scripts/bench/generate.sh (GPT-2) and scripts/bench/generate_families.sh (Llama 3.2,
// Qwen3), with the process's peak resident memory so far.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "llm/model/generate.h"
#include "llm/model/model_config.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "profile.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-generate", "Tokens/s of greedy generation, uncached and with a KV cache");
  options.add_options()("config", "Model config", cxxopts::value<std::string>()->default_value(
                                                      llm::config_file("gpt2-small.json").string()))(
      "new-tokens", "Tokens to generate", cxxopts::value<int64_t>()->default_value("200"))(
      "dtype", "The weights' dtype, for a family whose config has one (float32, bfloat16)", cxxopts::value<std::string>())(
      "cached-only", "Only the KV-cache run")(
      "profile", "Print where cached generation's time goes (the top ops) instead")(
      "by-shape", "With --profile, ops with different input shapes apart");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto path = args["config"].as<std::string>();
    auto settings = nlohmann::json::parse(llm::read_file(path));
    if (args.count("dtype") != 0) settings["dtype"] = args["dtype"].as<std::string>();
    auto model = llm::ModelConfig::parse(settings.dump(), path).make();
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
      if (!cached && args.count("cached-only") != 0) continue;
      const auto start = std::chrono::steady_clock::now();
      const auto out = llm::generate(*model, prompt, llm::SamplingOptions(new_tokens).kv_cache(cached));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      fmt::print(R"json({{"variant": "{}", "tokens_per_second": {:.2f}, "ids": {}, "threads": {}, "peak_rss_bytes": {}}})json"
                 "\n",
                 cached ? "kv-cache" : "uncached", static_cast<double>(new_tokens) / seconds, llm::show_ids(out),
                 torch::get_num_threads(), static_cast<int64_t>(usage.ru_maxrss) * 1024);
    }
  });
}
