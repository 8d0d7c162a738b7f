// Greedy generation speed with and without the KV cache: one JSON line each, for
// scripts/bench/generate.sh (GPT-2) and scripts/bench/generate_families.sh (Llama 3.2,
// Qwen3), with the process's peak resident memory so far and the bytes of Linear
// weights each decoded token reads. --bandwidth instead measures the machine's read
// bandwidth: the best of five sums of a 1 GB tensor on the --threads threads.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "llm/model/generate.h"
#include "llm/model/model_config.h"
#include "llm/nn/linear.h"
#include "llm/nn/matvec.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "profile.h"

namespace {

// What the memory delivers to a reduction over data no cache holds: 1 GB of float32.
void print_bandwidth() {
  const auto data = torch::ones({int64_t{1} << 28});
  double best = 0.0;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    data.sum().item<float>();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(data.nbytes()) / seconds / 1e9);
  }
  fmt::print(R"json({{"read_gb_per_s": {:.2f}, "threads": {}}})json"
             "\n",
             best, torch::get_num_threads());
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-generate", "Tokens/s of greedy generation, uncached and with a KV cache");
  options.add_options()("config", "Model config", cxxopts::value<std::string>()->default_value(
                                                      llm::config_file("gpt2-small.json").string()), "FILE")(
      "new-tokens", "Tokens to generate", cxxopts::value<int64_t>()->default_value("200"), "N")(
      "dtype", "The weights' dtype, for a family whose config has one (float32, bfloat16)", cxxopts::value<std::string>(),
      "NAME")(
      "weights-dtype", "The Linear weights for decoding: float32, bfloat16 or int8",
      cxxopts::value<std::string>()->default_value("float32"), "NAME")("cached-only", "Only the KV-cache run")(
      "bandwidth", "Print the read bandwidth (GB/s) instead")(
      "profile", "Print where cached generation's time goes (the top ops) instead")(
      "by-shape", "With --profile, ops with different input shapes apart");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    if (args.count("bandwidth") != 0) {
      print_bandwidth();
      return;
    }
    const auto path = args["config"].as<std::string>();
    auto settings = nlohmann::json::parse(llm::read_file(path));
    if (args.count("dtype") != 0) settings["dtype"] = args["dtype"].as<std::string>();
    auto model = [&] {  // each layer converted as it is drawn: no float32 model in memory first
      const llm::ConvertLinearsWhenBuilt converted(llm::parse_weights_dtype(args["weights-dtype"].as<std::string>()));
      return llm::ModelConfig::parse(settings.dump(), path).make();
    }();
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
      fmt::print(R"json({{"variant": "{}", "tokens_per_second": {:.2f}, "ids": {}, "threads": {}, "peak_rss_bytes": {}, )json"
                 R"json("weight_bytes": {}, "kernels": "{}"}})json"
                 "\n",
                 cached ? "kv-cache" : "uncached", static_cast<double>(new_tokens) / seconds, llm::show_ids(out),
                 torch::get_num_threads(), static_cast<int64_t>(usage.ru_maxrss) * 1024,
                 llm::linear_weight_bytes(*model), llm::kernel_isa_name(llm::best_kernel_isa()));
    }
  });
}
