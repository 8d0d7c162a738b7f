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
    // The lesson plots GELU and ReLU at 100 points from -3 to 3; here, the integers.
    const auto points = torch::linspace(-3, 3, 100).to(device);
    llm::GELU gelu;
    const auto gelu_y = gelu(points);
    const auto integers = torch::linspace(-3, 3, 7).to(device);
    const auto gelu_i = gelu(integers), relu_i = torch::relu(integers);
    fmt::print("{:>6} {:>9} {:>9}\n", "x", "GELU(x)", "ReLU(x)");
    for (int64_t i = 0; i < integers.size(0); ++i) {
      fmt::print("{:>6.2f} {:>9.4f} {:>9.4f}\n", integers[i].item<double>(), gelu_i[i].item<double>(),
                 relu_i[i].item<double>());
    }
    fmt::print("{}\n", config.emb_dim);
    llm::FeedForward ffn(config.emb_dim);
    ffn->to(device);
    const auto x = torch::rand({2, 3, config.emb_dim}).to(device);  // [batch_size, num_tokens, emb_dim]
    const auto out = ffn(x);                                         // [2, 3, emb_dim]
    fmt::print("{}\n", llm::torch_size(out));
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("feed_forward", llm::cli::seed(args), config);
      archive.insert(archive.end(), {{"points", points}, {"gelu", gelu_y}, {"input", x}, {"output", out}});
      const auto prints = llm::fingerprints(*ffn);
      archive.insert(archive.end(), prints.begin(), prints.end());
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
