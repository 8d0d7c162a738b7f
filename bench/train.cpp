// Training throughput: tokens/s of forward + backward + AdamW step on random batches,
// and the float32 matrix-multiply peak of this machine. JSON lines for
// scripts/bench/train.sh.
#include <fmt/format.h>

#include "llm/model/gpt_config.h"
#include "llm/train/loss.h"
#include "llm/util/cli.h"
#include "llm/util/show.h"
#include "timing.h"

using llm::bench::best_seconds;

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-train", "Tokens/s of a training step, and the matmul peak");
  options.add_options()("config", "Model config", cxxopts::value<std::string>())(
      "batch", "Batch size", cxxopts::value<int64_t>()->default_value("2"))(
      "context", "Tokens per sequence (0: the config's)", cxxopts::value<int64_t>()->default_value("0"))(
      "iters", "Timed steps (the best is reported)", cxxopts::value<int>()->default_value("3"))(
      "threads", "Intra-op threads (0: LibTorch's default)", cxxopts::value<int>()->default_value("0"))(
      "matmul", "Measure the float32 matmul peak instead (N x N)", cxxopts::value<int64_t>()->default_value("0"));
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    if (args["threads"].as<int>() > 0) torch::set_num_threads(args["threads"].as<int>());
    const int iters = args["iters"].as<int>();
    if (const int64_t n = args["matmul"].as<int64_t>(); n > 0) {
      const auto a = torch::randn({n, n}), b = torch::randn({n, n});
      const double s = best_seconds(iters, [&] { torch::mm(a, b); });
      fmt::print(R"json({{"matmul": {}, "gflops": {:.2f}, "threads": {}}})json" "\n", n, 2.0 * n * n * n / s / 1e9,
                 torch::get_num_threads());
      return;
    }
    auto config = llm::load_gpt_config(args["config"].as<std::string>());
    if (args["context"].as<int64_t>() > 0) config.context_length = args["context"].as<int64_t>();
    llm::GPTModel model(config);
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(5e-4).weight_decay(0.1));
    const int64_t b = args["batch"].as<int64_t>(), t = config.context_length;
    const llm::Batch batch{torch::randint(0, config.vocab_size, {b, t}, torch::kLong),
                           torch::randint(0, config.vocab_size, {b, t}, torch::kLong)};
    const double s = best_seconds(iters, [&] {
      optimizer.zero_grad();
      llm::calc_loss_batch(model, batch).backward();
      optimizer.step();
    });
    fmt::print(R"json({{"tokens_per_second": {:.1f}, "seconds_per_step": {:.4f}, "parameters": {}, "threads": {}}})json"
               "\n",
               static_cast<double>(b * t) / s, s, llm::parameter_count(*model), torch::get_num_threads());
  });
}
