// One DPO step (the ch07/04 notebook's compute_dpo_loss_batch, backward, AdamW step)
// on the first batch of instruction-data-with-preference.json: a trained policy and a
// frozen reference, both a model of the config given. A JSON line for
// scripts/bench/dpo.sh, with the process's peak resident memory.
#include <fmt/format.h>

#include "llm/cli/cli.h"
#include "llm/model/model_config.h"
#include "llm/text/preference_data.h"
#include "llm/train/adamw.h"
#include "llm/train/dpo.h"
#include "llm/util/files.h"
#include "llm/util/memory.h"
#include "timing.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-dpo", "Seconds of one DPO step, and the peak memory");
  options.add_options()("config", "Model config", cxxopts::value<std::string>(), "FILE")(
      "batch-size", "Preference entries per batch (the notebook's 8)", cxxopts::value<int64_t>()->default_value("8"), "N")(
      "iters", "Timed steps (the best is reported)", cxxopts::value<int>()->default_value("3"), "N");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto config = llm::ModelConfig::load(args["config"].as<std::string>());
    torch::manual_seed(123);
    auto policy = config.make();
    torch::manual_seed(123);
    auto reference = config.make();
    for (auto& parameter : reference->parameters()) parameter.set_requires_grad(false);
    reference->eval();
    policy->train();
    const auto entries = llm::read_preference_data(llm::data_file("instruction-data-with-preference.json"));
    const auto b = args["batch-size"].as<int64_t>();
    const llm::PreferenceDataset dataset({entries.begin(), entries.begin() + b}, llm::BpeTokenizer::gpt2(), {});
    std::vector<const llm::PreferenceTokens*> items;
    for (int64_t i = 0; i < b; ++i) items.push_back(&dataset.tokens(i));
    const auto batch = dataset.collate()(items);
    llm::AdamW optimizer(policy->parameters(), torch::optim::AdamWOptions(5e-6).weight_decay(0.01));
    const double s = llm::bench::best_seconds(args["iters"].as<int>(), [&] {
      policy->zero_grad(/*set_to_none=*/true);
      llm::compute_dpo_loss_batch(batch, *policy, *reference, 0.1).loss.backward();
      optimizer.step();
    });
    fmt::print(R"json({{"seconds_per_step": {:.4f}, "tokens": {}, "threads": {}, "peak_rss": {}}})json" "\n", s,
               batch.chosen.numel() * 2, torch::get_num_threads(), llm::peak_resident_memory());
  });
}
