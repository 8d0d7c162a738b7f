// Forward + backward time of the chapter-3 multi-head variants: one JSON line per
// variant, for scripts/bench/attention.sh.
#include <fmt/format.h>

#include "llm/attention/causal_attention.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/cli/cli.h"
#include "timing.h"

namespace {

template <typename Module>
double seconds_per_step(Module& module, const torch::Tensor& x, int iters) {
  module->to(x.device());
  return llm::bench::best_seconds(iters, [&] {
    module->zero_grad(/*set_to_none=*/true);
    module->forward(x).sum().backward();
    if (x.is_cuda()) torch::cuda::synchronize(x.device().index());
  });
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-attention", "Forward + backward time of the multi-head attention variants");
  options.add_options()("batch-size", "Batch size", cxxopts::value<int64_t>()->default_value("8"), "N")(
      "tokens", "Tokens per sequence", cxxopts::value<int64_t>()->default_value("1024"), "N")(
      "width", "Model width (d_in = d_out)", cxxopts::value<int64_t>()->default_value("768"), "N")(
      "heads", "Heads", cxxopts::value<int64_t>()->default_value("12"), "N")(
      "groups", "Key/value groups of GQA", cxxopts::value<int64_t>()->default_value("4"), "N")(
      "iters", "Timed steps (the best is reported)", cxxopts::value<int>()->default_value("3"), "N");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const int64_t b = args["batch-size"].as<int64_t>(), t = args["tokens"].as<int64_t>(), d = args["width"].as<int64_t>();
    const int64_t h = args["heads"].as<int64_t>();
    const int iters = args["iters"].as<int>();
    const auto base = llm::AttentionOptions(d, d).context_length(t).num_heads(h);
    const auto x = torch::rand({b, t, d}).to(llm::cli::device(args)).requires_grad_();
    const auto report = [&](const char* name, double s) {
      fmt::print(R"json({{"variant": "{}", "seconds": {:.5f}, "threads": {}}})json" "\n", name, s,
                 torch::get_num_threads());
    };
    llm::MultiAttentionStacking stacking(llm::AttentionOptions(base).d_out(d / h));
    report("stacking", seconds_per_step(stacking, x, iters));
    llm::MultiHeadAttention splitting(base);
    report("splitting", seconds_per_step(splitting, x, iters));
    llm::GroupedQueryAttention gqa(llm::AttentionOptions(base).num_kv_groups(args["groups"].as<int64_t>()));
    report("gqa", seconds_per_step(gqa, x, iters));
  });
}
