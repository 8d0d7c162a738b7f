// What fewer bytes cost a trained model: for each --weights-dtype against float32, the
// largest logit difference over greedy decoding (each step fed float32's tokens, so
// that the steps line up), how many of the greedy tokens equal float32's, and the
// perplexity on the validation part of the checkpoint's training text. One JSON line
// per dtype, for scripts/bench/quality.sh.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "llm/cli/cli.h"
#include "llm/model/generate.h"
#include "llm/nn/linear.h"
#include "llm/text/data_loader.h"
#include "llm/text/tokenizer_json.h"
#include "llm/train/checkpoint.h"
#include "llm/train/loss.h"
#include "llm/train/pretrain_task.h"
#include "llm/train/training_run.h"

namespace {

struct Decoded {
  torch::Tensor ids;                  // [1, prompt + steps], greedy
  std::vector<torch::Tensor> logits;  // each step's last-position logits [vocab]
};

// Greedy decoding with the KV cache; with `forced`, each step is fed forced's next
// token instead of its own choice.
Decoded decode(llm::LanguageModelImpl& model, const torch::Tensor& prompt, int64_t steps, const torch::Tensor& forced) {
  torch::NoGradGuard no_grad;
  auto cache = model.new_cache();
  Decoded out{prompt, {}};
  auto logits = model.forward_cached(prompt, cache);
  for (int64_t i = 0; i < steps; ++i) {
    const auto last = logits[0][-1].to(torch::kFloat);
    out.logits.push_back(last);
    auto next = forced.defined() ? forced.slice(1, prompt.size(1) + i, prompt.size(1) + i + 1)
                                 : last.argmax().view({1, 1});
    out.ids = torch::cat({out.ids, next}, 1);
    if (i + 1 < steps) logits = model.forward_cached(next, cache);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-quality", "What bfloat16 and int8 weights cost a trained model");
  options.add_options()("checkpoint", "A pretraining run's checkpoint", cxxopts::value<std::string>(), "FILE")(
      "prompt", "Text to continue", cxxopts::value<std::string>()->default_value("Every effort moves you"), "TEXT")(
      "new-tokens", "Greedy tokens (at most the context allows)", cxxopts::value<int64_t>()->default_value("200"), "N");
  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    if (args.count("checkpoint") == 0) throw llm::cli::BadFlagValue("give --checkpoint FILE");
    const auto path = args["checkpoint"].as<std::string>();
    const auto checkpoint = llm::load_checkpoint(path);
    const auto config = llm::checkpoint_train_config(checkpoint, path);
    const auto tokenizer = llm::tokenizer_named(config.tokenizer);
    const auto prompt = llm::text_to_token_ids(tokenizer, args["prompt"].as<std::string>());
    auto reference = llm::checkpoint_model(checkpoint, path);
    reference->eval();
    const int64_t context = reference->shape().context_length;
    const int64_t steps = std::min(args["new-tokens"].as<int64_t>(), context - prompt.size(1));
    const auto data = llm::load_pretrain_data(config, context, tokenizer);
    const llm::DataLoader val(data.split.val, llm::DataLoaderOptions(config.batch_size).shuffle(false).drop_last(false));
    const auto f32 = decode(*reference, prompt, steps, torch::Tensor());
    for (const auto dtype : {llm::WeightsDtype::kFloat32, llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
      // float32 is the reference itself: no difference, every token the same.
      auto model = reference;
      double largest = 0.0;
      int64_t same = steps;
      if (dtype != llm::WeightsDtype::kFloat32) {
        model = llm::checkpoint_model(checkpoint, path);
        model->eval();
        llm::convert_linear_weights(*model, dtype);
        const auto forced = decode(*model, prompt, steps, f32.ids);
        for (size_t i = 0; i < forced.logits.size(); ++i) {
          largest = std::max(largest, (forced.logits[i] - f32.logits[i]).abs().max().item<double>());
        }
        const auto own = decode(*model, prompt, steps, torch::Tensor()).ids;
        same = own.slice(1, prompt.size(1)).eq(f32.ids.slice(1, prompt.size(1))).sum().item<int64_t>();
      }
      torch::NoGradGuard no_grad;
      const double val_loss = llm::calc_loss_loader(*model, val);
      const nlohmann::json line = {{"weights", llm::weights_dtype_name(dtype)}, {"steps", steps},
                                   {"largest_logit_difference", largest}, {"same_greedy_tokens", same},
                                   {"val_loss", val_loss}, {"perplexity", std::exp(val_loss)},
                                   {"weight_bytes", llm::linear_weight_bytes(*model)}};
      fmt::print("{}\n", line.dump());
    }
  });
}
