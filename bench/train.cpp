// Training throughput: tokens/s of forward + backward + AdamW step on random batches,
// for a model config of any family, and the float32 matrix-multiply peak of this
// machine. JSON lines for scripts/bench/train.sh, with the process's peak resident memory.
#include <fmt/format.h>

#include "llm/model/model_config.h"
#include "llm/train/adamw.h"
#include "llm/train/loss.h"
#include "llm/cli/cli.h"
#include "llm/util/memory.h"
#include "llm/util/show.h"
#include "profile.h"
#include "timing.h"

using llm::bench::best_seconds;

namespace {

/// Seconds of each phase of one training step.
void print_phases(llm::LanguageModelImpl& model, torch::optim::Optimizer& optimizer, const std::function<void()>& zero_grad,
                  const llm::Batch& batch) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  zero_grad();
  const auto t1 = clock::now();
  auto loss = llm::calc_loss_batch(model, batch);
  const auto t2 = clock::now();
  loss.backward();
  const auto t3 = clock::now();
  optimizer.step();
  const auto t4 = clock::now();
  const double total = seconds(t0, t4);
  for (const auto& [name, s] : {std::pair{"zero_grad", seconds(t0, t1)}, std::pair{"forward + loss", seconds(t1, t2)},
                                std::pair{"backward", seconds(t2, t3)}, std::pair{"optimizer step", seconds(t3, t4)}})
    fmt::print("{:<16} {:>8.1f} ms {:>6.1f}%\n", name, s * 1e3, 100 * s / total);
  fmt::print("{:<16} {:>8.1f} ms\n\n", "step", total * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-train", "Tokens/s of a training step, and the matmul peak");
  options.add_options()("config", "Model config", cxxopts::value<std::string>(), "FILE")(
      "batch-size", "Batch size", cxxopts::value<int64_t>()->default_value("2"), "N")(
      "context", "Tokens per sequence (0: the config's)", cxxopts::value<int64_t>()->default_value("0"), "N")(
      "iters", "Timed steps (the best is reported)", cxxopts::value<int>()->default_value("3"), "N")(
      "matmul", "Measure the float32 matmul peak instead (N x N)", cxxopts::value<int64_t>()->default_value("0"), "N")(
      "profile", "Print where one step's time goes (phases, then the top ops) instead")(
      "by-shape", "With --profile, ops with different input shapes apart")(
      "libtorch-step", "Zero the gradients and step with torch::optim::AdamW, as before the one-pass step");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const int iters = args["iters"].as<int>();
    const auto device = llm::cli::device(args);
    const auto sync = [&] {
      if (device.is_cuda()) torch::cuda::synchronize(device.index());
    };
    if (const int64_t n = args["matmul"].as<int64_t>(); n > 0) {
      const auto a = torch::randn({n, n}, device), b = torch::randn({n, n}, device);
      const double s = best_seconds(iters, [&] {
        torch::mm(a, b);
        sync();
      });
      fmt::print(R"json({{"matmul": {}, "gflops": {:.2f}, "threads": {}}})json" "\n", n, 2.0 * n * n * n / s / 1e9,
                 torch::get_num_threads());
      return;
    }
    const auto file = llm::ModelConfig::load(args["config"].as<std::string>());
    auto settings = file.settings();
    settings["family"] = file.family();
    if (args["context"].as<int64_t>() > 0) settings["context_length"] = args["context"].as<int64_t>();
    const auto config = llm::ModelConfig::from_json(settings, args["config"].as<std::string>());
    torch::manual_seed(123);
    auto model = config.make();
    model->to(device);
    // The trainer's step: gradients reset to none, then the one-pass AdamW.
    const bool libtorch_step = args.count("libtorch-step") > 0;
    const auto adamw = torch::optim::AdamWOptions(5e-4).weight_decay(0.1);
    std::unique_ptr<torch::optim::Optimizer> optimizer =
        libtorch_step ? std::make_unique<torch::optim::AdamW>(model->parameters(), adamw)
                      : std::make_unique<llm::AdamW>(model->parameters(), adamw);
    const auto zero_grad = [&] { libtorch_step ? optimizer->zero_grad() : model->zero_grad(/*set_to_none=*/true); };
    const auto& shape = config.shape();
    const int64_t b = args["batch-size"].as<int64_t>(), t = shape.context_length;
    const llm::Batch batch{torch::randint(0, shape.vocab_size, {b, t}, torch::kLong),
                           torch::randint(0, shape.vocab_size, {b, t}, torch::kLong)};
    const auto step = [&] {
      zero_grad();
      llm::calc_loss_batch(*model, batch).backward();
      optimizer->step();
      sync();
    };
    if (args.count("profile")) {
      step();
      print_phases(*model, *optimizer, zero_grad, batch);
      print_profile(llm::bench::profile_ops(step, args.count("by-shape") > 0), 25);
      return;
    }
    const double s = best_seconds(iters, step);
    int64_t embedding = 0;  // looked up, not multiplied: the token (and GPT's position) embeddings
    for (const auto& item : model->named_parameters()) {
      if (item.key() == "tok_emb.weight" || item.key() == "pos_emb.weight") embedding += item.value().numel();
    }
    fmt::print(R"json({{"tokens_per_second": {:.1f}, "seconds_per_step": {:.4f}, "parameters": {}, )json"
               R"json("embedding_parameters": {}, "threads": {}, "peak_rss": {}}})json" "\n",
               static_cast<double>(b * t) / s, s, llm::parameter_count(*model), embedding, torch::get_num_threads(),
               llm::peak_resident_memory());
  });
}
