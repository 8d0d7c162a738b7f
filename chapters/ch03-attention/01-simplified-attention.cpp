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

namespace {

// 3.3.1: the attention of one query, x^(q), over all inputs, step by step.
void one_query(const torch::Tensor& inputs, int64_t q) {
  const auto query = inputs[q - 1];
  const auto attn_scores = torch::matmul(inputs, query);  // [t]: the dot product with every input
  fmt::print("{}\n", llm::show(attn_scores));
  fmt::print("{}\n{}\n", llm::show((inputs[0] * query).sum()), llm::show(torch::dot(inputs[0], query)));
  const auto by_sum = attn_scores / attn_scores.sum();
  fmt::print("Attention weights: {}\nSum: {}\n", llm::show(by_sum), llm::show(by_sum.sum()));
  const auto naive = torch::exp(attn_scores) / torch::exp(attn_scores).sum(0);  // softmax_naive
  fmt::print("Attention weights: {}\nSum: {}\n", llm::show(naive), llm::show(naive.sum()));
  const auto attn_weights = torch::softmax(attn_scores, 0);
  fmt::print("Attention weights: {}\nSum: {}\n", llm::show(attn_weights), llm::show(attn_weights.sum()));
  fmt::print("{}\n", llm::show(torch::matmul(attn_weights, inputs)));  // the context vector
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-01-simplified-attention",
                                   "Attention scores, weights and context vectors without trainable weights");
  options.add_options()("query", "Which input to walk through first, counting from 1 (the lesson's x^(2))",
                        cxxopts::value<int64_t>()->default_value("2"), "N")(
      "d-in", "Width of each input (other than 3: random inputs)", cxxopts::value<int64_t>()->default_value("3"), "N")(
      "context-length", "Number of inputs (other than 6: random inputs)", cxxopts::value<int64_t>()->default_value("6"),
      "N");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto d_in = llm::cli::positive_flag(args, "d-in"), context = llm::cli::positive_flag(args, "context-length");
    const auto inputs = llm::attention_input({context, d_in}).detach().to(device);  // [t, d_in]
    const int64_t q = args["query"].as<int64_t>();
    if (q < 1 || q > inputs.size(0)) {
      throw llm::cli::BadFlagValue(fmt::format("--query must be in 1..{}, got {}", inputs.size(0), q));
    }
    one_query(inputs, q);

    // 3.3.2: all queries at once.
    const auto result = llm::simplified_self_attention(inputs);
    fmt::print("{}\n{}\n", llm::show(result.scores), llm::show(result.weights));
    fmt::print("All row sums: {}\n", llm::show(result.weights.sum(-1)));
    fmt::print("{}\n", llm::show(result.context));
    fmt::print("Previous {} context vector: {}\n", q == 2 ? std::string("2nd") : fmt::format("#{}", q),
               llm::show(result.context[q - 1]));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(), {{"input", inputs},
                                                                 {"scores", result.scores},
                                                                 {"weights", result.weights},
                                                                 {"context", result.context}});
    }
  });
}
