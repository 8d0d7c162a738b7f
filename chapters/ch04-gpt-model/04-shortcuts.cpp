// Lesson 4.4: gradients vanish through a deep stack of layers; shortcut connections
// carry them back. Prints the mean absolute gradient of each layer's weights.
#include <fmt/format.h>

#include "llm/io/tensor_archive.h"
#include "llm/nn/layers.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-04-shortcuts", "Mean absolute gradients with and without shortcuts");
  llm::add_config_flag(options, "tiny.json");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const std::vector<int64_t> layer_sizes = {3, 3, 3, 3, 3, 1};
    const auto sample_input = torch::tensor({{1.0, 0.0, -1.0}}).to(device);
    llm::NamedTensors archive;
    for (const bool shortcut : {false, true}) {
      torch::manual_seed(llm::cli::seed(args));  // the lesson seeds each model the same way
      llm::ExampleDeepNeuralNetwork model(layer_sizes, shortcut);
      model->to(device);
      const auto output = model->forward(sample_input);
      torch::nn::functional::mse_loss(output, torch::tensor({{0.0}}, device)).backward();
      fmt::print("{} shortcuts:\n", shortcut ? "With" : "Without");
      std::vector<double> means;
      for (const auto& p : model->named_parameters()) {
        if (p.key().find("weight") == std::string::npos) continue;
        means.push_back(p.value().grad().abs().mean().item<double>());
        fmt::print("{} has gradient mean of {}\n", p.key(), means.back());
      }
      archive.emplace_back(shortcut ? "grad_means_with" : "grad_means_without", torch::tensor(means));
    }
    // The GPT of --config has a shortcut around every attention and feed-forward
    // layer: the gradient reaches the first block about as strongly as the last.
    const auto config = llm::config_from_flags(args);
    llm::GPTModel gpt(config);
    gpt->to(device);
    const auto ids = torch::randint(0, config.vocab_size, {1, std::min<int64_t>(8, config.context_length)}).to(device);
    const auto logits = gpt->forward(ids);  // [1, t, vocab_size]
    torch::nn::functional::cross_entropy(logits.flatten(0, 1), ids.flatten()).backward();
    fmt::print("In the GPT of --config (shortcuts in every block):\n");
    for (size_t b = 0; b < gpt->trf_blocks->size(); ++b) {
      const auto grad = gpt->named_parameters()[fmt::format("trf_blocks.{}.att.W_query.weight", b)].grad();
      fmt::print("  trf_blocks.{}.att.W_query.weight has gradient mean of {}\n", b, grad.abs().mean().item<double>());
    }
    if (args.count("save-outputs") != 0) {
      archive.emplace_back("seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args))));
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
