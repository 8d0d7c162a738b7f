// Lesson 4.6: the GPT model: its logits for a batch, its parameter count (with and
// without the output head, which GPT-2 ties to the token embedding) and its size.
#include <fmt/format.h>

#include "llm/model/generate.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-06-gpt-model", "The GPT model of --config");
  llm::add_model_flags(options);
  options.add_options()("eval", "Run in evaluation mode (no dropout)");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto batch = torch::cat({llm::text_to_token_ids(tokenizer, "Every effort moves you"),
                                   llm::text_to_token_ids(tokenizer, "Every day holds a")}).to(llm::cli::device(args));  // [2, 4]
    auto model = llm::gpt_model_from_flags(args);
    llm::require_context_length(args, model->config.context_length, batch.size(1), "the lesson's batch");
    if (args.count("eval") != 0) model->eval();
    const auto logits = model->forward(batch);  // [2, 4, vocab_size]
    fmt::print("Input batch:\n {}\n\nOutput shape: {}\n{}\n", llm::show(batch), llm::torch_size(logits),
               llm::show(logits));

    const int64_t total_params = llm::parameter_count(*model);
    fmt::print("Total number of parameters: {}\n", llm::thousands(total_params));
    fmt::print("Token embedding layer shape: {}\nOutput layer shape: {}\n", llm::torch_size(model->tok_emb->weight),
               llm::torch_size(model->out_head->weight));
    // GPT-2 ties the output head to the token embedding: the same matrix, counted once.
    const int64_t total_params_gpt2 = total_params - model->out_head->weight.numel();
    fmt::print("Number of trainable parameters considering weight tying: {}\n", llm::thousands(total_params_gpt2));
    fmt::print("Total size of the model: {:.2f} MB\n", static_cast<double>(total_params) * 4 / (1024.0 * 1024.0));
    llm::save_weights_flags(args, *model);
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("gpt_model", llm::cli::seed(args), model->config);
      archive.insert(archive.end(), {{"inputs", batch}, {"logits", logits}, {"eval", torch::tensor(args.count("eval") != 0)}});
      const auto prints = llm::fingerprints(*model);
      archive.insert(archive.end(), prints.begin(), prints.end());
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
