// Lesson 4.1: the GPT's skeleton, with placeholder blocks and norm: token ids in,
// one row of vocabulary logits per position out.
#include <fmt/format.h>

#include "llm/model/generate.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-01-dummy-gpt", "The placeholder GPT of lesson 4.1");
  llm::add_config_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto config = llm::config_from_flags(args);
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto batch = torch::cat({llm::text_to_token_ids(tokenizer, "Every effort moves you"),
                                   llm::text_to_token_ids(tokenizer, "Every day holds a")}).to(device);  // [2, 4]
    fmt::print("{}\n", llm::show(batch));
    llm::DummyGPTModel model(config);
    model->to(device);
    const auto logits = model->forward(batch);  // [2, 4, vocab_size]
    fmt::print("Output shape: {}\n{}\n", llm::torch_size(logits), llm::show(logits));
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("dummy_gpt", llm::cli::seed(args), config);
      archive.insert(archive.end(), {{"inputs", batch}, {"logits", logits}});
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
