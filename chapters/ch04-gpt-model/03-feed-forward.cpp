// Lesson 4.3: GELU (the tanh approximation) next to ReLU, and the feed-forward
// network emb_dim -> 4 * emb_dim -> emb_dim.
#include <fmt/format.h>

#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-03-feed-forward", "GELU and the feed-forward network (width from --config)");
  llm::add_config_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto config = llm::config_from_flags(args);
    const auto points = torch::linspace(-3, 3, 7).to(device);
    llm::GELU gelu;
    const auto gelu_y = gelu(points), relu_y = torch::relu(points);
    fmt::print("{:>6} {:>9} {:>9}\n", "x", "GELU(x)", "ReLU(x)");
    for (int64_t i = 0; i < points.size(0); ++i) {
      fmt::print("{:>6.2f} {:>9.4f} {:>9.4f}\n", points[i].item<double>(), gelu_y[i].item<double>(),
                 relu_y[i].item<double>());
    }
    llm::FeedForward ff(config.emb_dim);
    ff->to(device);
    const auto x = torch::rand({2, 3, config.emb_dim}).to(device);
    const auto out = ff(x);  // [2, 3, emb_dim]
    fmt::print("\nFeedForward: input {} -> hidden {} -> output {}; {} parameters\n", llm::shape(x),
               4 * config.emb_dim, llm::shape(out), llm::parameter_count(*ff));
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("feed_forward", llm::cli::seed(args), config);
      archive.insert(archive.end(), {{"points", points}, {"gelu", gelu_y}, {"input", x}, {"output", out}});
      const auto prints = llm::fingerprints(*ff);
      archive.insert(archive.end(), prints.begin(), prints.end());
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
