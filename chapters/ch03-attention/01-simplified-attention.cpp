// Lesson 3.3: self-attention without trainable weights on "Your journey starts with
// one step": dot-product scores, softmax weights, context vectors.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/simplified.h"
#include "llm/io/tensor_archive.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-01-simplified-attention",
                                   "Attention scores, weights and context vectors without trainable weights");
  options.add_options()("query", "Which input (0-based) to walk through first",
                        cxxopts::value<int64_t>()->default_value("1"))(
      "d-in", "Width of each input (other than 3: random inputs)", cxxopts::value<int64_t>()->default_value("3"))(
      "context-length", "Number of inputs (other than 6: random inputs)", cxxopts::value<int64_t>()->default_value("6"));

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto inputs =  // [t, d_in]
        llm::attention_input({args["context-length"].as<int64_t>(), args["d-in"].as<int64_t>()}).detach().to(device);
    const int64_t q = args["query"].as<int64_t>();
    if (q < 0 || q >= inputs.size(0)) {
      throw llm::Error(fmt::format("--query must be in 0..{}, got {}", inputs.size(0) - 1, q));
    }
    const auto scores_q = torch::matmul(inputs, inputs[q]);  // [6]
    fmt::print("Scores of query {} (dot products with every input):\n{}\n", q, llm::show(scores_q));
    fmt::print("Normalised by the sum:\n{}\n", llm::show(scores_q / scores_q.sum()));
    fmt::print("Normalised by softmax:\n{}\n", llm::show(torch::softmax(scores_q, 0)));
    fmt::print("Context vector {}:\n{}\n\n", q, llm::show(torch::matmul(torch::softmax(scores_q, 0), inputs)));

    const auto result = llm::simplified_self_attention(inputs);
    fmt::print("All scores:\n{}\nAll weights (rows sum to 1):\n{}\nAll context vectors:\n{}\n", llm::show(result.scores),
               llm::show(result.weights), llm::show(result.context));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(), {{"input", inputs},
                                                                 {"scores", result.scores},
                                                                 {"weights", result.weights},
                                                                 {"context", result.context}});
    }
  });
}
