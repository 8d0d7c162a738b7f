// Lesson 4.2: normalising activations to mean 0 and variance 1, by hand and with the
// LayerNorm module (learned scale and shift, eps 1e-5, biased variance).
#include <fmt/format.h>

#include "llm/cli/model_flags.h"
#include "llm/cli/cli.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-02-layer-norm", "Layer normalisation (its width from --config)");
  llm::add_config_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto config = llm::config_from_flags(args);
    const auto batch_example = torch::randn({2, 5}).to(device);
    torch::nn::Sequential layer(torch::nn::Linear(5, 6), torch::nn::ReLU());
    layer->to(device);
    const auto out = layer->forward(batch_example);  // [2, 6]
    const auto mean = out.mean(-1, true), var = out.var(-1, /*unbiased=*/false, /*keepdim=*/true);
    fmt::print("Outputs of Linear(5, 6) + ReLU:\n{}\nMean:\n{}\nVariance:\n{}\n", llm::show(out), llm::show(mean),
               llm::show(var));
    const auto out_norm = (out - mean) / torch::sqrt(var);
    fmt::print("Normalised by hand:\n{}\nMean:\n{}\nVariance:\n{}\n", llm::show(out_norm),
               llm::show(out_norm.mean(-1, true)), llm::show(out_norm.var(-1, false, true)));

    llm::LayerNorm ln(5);
    ln->to(device);
    const auto out_ln = ln(batch_example);
    fmt::print("LayerNorm(5) of the inputs: mean\n{}\nvariance\n{}\n", llm::show(out_ln.mean(-1, true)),
               llm::show(out_ln.var(-1, false, true)));

    llm::LayerNorm ln_model(config.emb_dim);
    ln_model->to(device);
    const auto x = torch::rand({2, 3, config.emb_dim}).to(device);
    const auto y = ln_model(x);  // [2, 3, emb_dim]
    fmt::print("LayerNorm({}) of rand [2, 3, {}]: largest |mean| {:.3g}, variance from {:.6f} to {:.6f}\n",
               config.emb_dim, config.emb_dim, y.mean(-1).abs().max().item<double>(),
               y.var(-1, false).min().item<double>(), y.var(-1, false).max().item<double>());
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("layer_norm", llm::cli::seed(args), config);
      archive.insert(archive.end(), {{"batch_example", batch_example},
                                     {"out", out},
                                     {"out_norm", out_norm},
                                     {"out_ln", out_ln},
                                     {"x", x},
                                     {"y", y}});
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
