// Lesson 5.3: decoding strategies. Greedy choice, sampling, temperature scaling and
// top-k on the lesson's nine-word vocabulary, then generation with a GPT.
#include <fmt/format.h>

#include <array>

#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"

namespace {

const std::array<const char*, 9> kWords = {"closer", "every", "effort",  "forward", "inches",
                                           "moves",  "pizza", "toward", "you"};

// How often each word comes in 1,000 draws from `probas`.
void print_sampled_tokens(const torch::Tensor& probas) {
  std::vector<int64_t> draws;
  for (int i = 0; i < 1000; ++i) draws.push_back(torch::multinomial(probas, 1).item<int64_t>());
  const auto counts = torch::bincount(torch::tensor(draws), {}, kWords.size());
  for (size_t i = 0; i < kWords.size(); ++i) fmt::print("{} x {}\n", counts[i].item<int64_t>(), kWords[i]);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-03-sampling", "Temperature scaling and top-k sampling");
  llm::add_trained_model_flags(options);
  llm::add_sampling_flags(options, "Every effort moves you", 15);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto seed = llm::cli::seed(args);
    const auto next_token_logits = torch::tensor({4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79});
    const auto probas = torch::softmax(next_token_logits, 0);
    fmt::print("Greedy: {}\n", kWords[probas.argmax().item<int64_t>()]);
    torch::manual_seed(seed);
    fmt::print("Sampled: {}\n", kWords[torch::multinomial(probas, 1).item<int64_t>()]);
    torch::manual_seed(seed);
    print_sampled_tokens(probas);

    for (const double temperature : {1.0, 0.1, 5.0}) {
      fmt::print("Temperature {}: {}\n", temperature, llm::show(torch::softmax(next_token_logits / temperature, 0)));
    }
    const auto [top_logits, top_positions] = torch::topk(next_token_logits, 3);
    fmt::print("Top 3 logits: {}\nTop 3 positions: {}\n", llm::show(top_logits), llm::show_ids(top_positions));
    const auto kept = torch::where(next_token_logits < top_logits[-1], -std::numeric_limits<float>::infinity(),
                                   next_token_logits);
    fmt::print("After top-k: {}\nProbabilities: {}\n", llm::show(kept), llm::show(torch::softmax(kept, 0)));

    const auto tokenizer = llm::BpeTokenizer::gpt2();
    auto model = llm::trained_model_from_flags(args);
    model->eval();
    const auto sampling = llm::sampling_from_flags(args);
    torch::manual_seed(seed);
    const auto out = llm::generate(model, llm::text_to_token_ids(tokenizer, args["prompt"].as<std::string>()), sampling);
    fmt::print("Output text:\n{}\n", llm::token_ids_to_text(tokenizer, out));
  });
}
