// Lesson 4.5: the transformer block: pre-norm attention and feed-forward, each with
// dropout on its output and a shortcut around it. Shape in = shape out. Then
// exercise 4.1: the parameters of its feed-forward and attention modules.
#include <fmt/format.h>

#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-05-transformer-block", "One transformer block of the --config GPT");
  llm::add_config_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto config = llm::config_from_flags(args);
    const auto x = torch::rand({2, 4, config.emb_dim}).to(device);  // drawn first, as in the lesson
    llm::TransformerBlock block(config);
    block->to(device);
    const auto output = block(x);  // [2, 4, emb_dim]
    fmt::print("Input shape: {}\nOutput shape: {}\n", llm::torch_size(x), llm::torch_size(output));
    fmt::print("Total number of parameters in feed forward module: {}\n", llm::thousands(llm::parameter_count(*block->ff.ptr())));
    fmt::print("Total number of parameters in attention module: {}\n", llm::thousands(llm::parameter_count(*block->att)));
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("transformer_block", llm::cli::seed(args), config);
      archive.insert(archive.end(), {{"input", x}, {"output", output}});
      const auto prints = llm::fingerprints(*block);
      archive.insert(archive.end(), prints.begin(), prints.end());
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
