// Lesson 5.3: decoding strategies. Greedy choice, sampling, temperature scaling and
// top-k on the lesson's nine-word vocabulary, then generation with a GPT: the trained
// one of --checkpoint (ch05-02-train writes runs/lesson/checkpoint.pt), or an untrained
// one, which the output says.
#include <fmt/format.h>

#include <array>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/util/show.h"

namespace {

const std::array<const char*, 9> kWords = {"closer", "every", "effort",  "forward", "inches",
                                           "moves",  "pizza", "toward", "you"};

// How often each word comes in 1,000 draws from `probas`, after seeding as the lesson does.
void print_sampled_tokens(const torch::Tensor& probas, uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<int64_t> sample;
  for (int i = 0; i < 1000; ++i) sample.push_back(torch::multinomial(probas, 1).item<int64_t>());
  const auto sampled_ids = torch::bincount(torch::tensor(sample), {}, kWords.size());
  for (size_t i = 0; i < kWords.size(); ++i) fmt::print("{} x {}\n", sampled_ids[i].item<int64_t>(), kWords[i]);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-03-sampling", "Temperature scaling and top-k sampling");
  llm::add_trained_model_flags(options);
  llm::add_sampling_flags(options, "Every effort moves you", 15, /*temperature=*/1.4, /*top_k=*/25);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto seed = llm::cli::seed(args);
    const auto sampling = llm::sampling_from_flags(args);
    // 5.3.1: the logits a model might give after "every effort moves you".
    const auto next_token_logits = torch::tensor({4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79});
    const auto probas = torch::softmax(next_token_logits, 0);
    fmt::print("{}\n", kWords[torch::argmax(probas).item<int64_t>()]);
    torch::manual_seed(seed);
    fmt::print("{}\n", kWords[torch::multinomial(probas, 1).item<int64_t>()]);
    print_sampled_tokens(probas, seed);

    // Temperatures 1 (the original), 0.1 (sharper) and 5 (flatter); the lesson plots them.
    std::vector<torch::Tensor> scaled_probas;
    for (const double temperature : {1.0, 0.1, 5.0}) {
      scaled_probas.push_back(torch::softmax(next_token_logits / temperature, 0));
      fmt::print("Temperature {}: {}\n", temperature, llm::show(scaled_probas.back()));
    }
    print_sampled_tokens(scaled_probas[1], seed);
    print_sampled_tokens(scaled_probas[2], seed);

    // 5.3.2: top-k keeps the k largest logits and masks the rest with -inf.
    const auto [top_logits, top_pos] = torch::topk(next_token_logits, 3);
    fmt::print("Top logits: {}\nTop positions: {}\n", llm::show(top_logits), llm::show(top_pos));
    const auto new_logits = torch::where(next_token_logits < top_logits[-1],
                                         -std::numeric_limits<float>::infinity(), next_token_logits);
    fmt::print("{}\n{}\n", llm::show(new_logits), llm::show(torch::softmax(new_logits, 0)));

    // 5.3.3: generate() with temperature and top-k.
    auto trained = llm::trained_model_from_flags(args);
    auto& model = trained.model;
    const auto& tokenizer = trained.tokenizer;
    model->eval();
    fmt::print("Weights: {}\n", llm::model_source(args));
    const auto prompt = llm::text_to_token_ids(tokenizer, args["prompt"].as<std::string>());
    const auto token_ids = llm::generate_from_flags(args, *model, prompt, sampling);  // seeded right before
    fmt::print("Output text:\n {}\n", llm::token_ids_to_text(tokenizer, token_ids));
  });
}
