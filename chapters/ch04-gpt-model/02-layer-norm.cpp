// Lesson 4.2: normalising activations to mean 0 and variance 1, first by hand (the
// lesson's var() is unbiased here), then with the LayerNorm module (learned scale and
// shift, eps 1e-5, biased variance).
#include <fmt/format.h>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/nn/layers.h"
#include "llm/util/show.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-02-layer-norm", "Layer normalisation, by hand and as a module");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    // Two training examples with five features each.
    const auto batch_example = torch::randn({2, 5}).to(device);
    torch::nn::Sequential layer(torch::nn::Linear(5, 6), torch::nn::ReLU());
    layer->to(device);
    const auto out = layer->forward(batch_example);  // [2, 6]
    fmt::print("{}\n", llm::show(out));

    const auto mean = out.mean(-1, /*keepdim=*/true), var = out.var(-1, /*unbiased=*/true, /*keepdim=*/true);
    fmt::print("Mean:\n {}\nVariance:\n {}\n", llm::show(mean), llm::show(var));

    const auto out_norm = (out - mean) / torch::sqrt(var);
    const auto norm_mean = out_norm.mean(-1, true), norm_var = out_norm.var(-1, true, true);
    fmt::print("Normalized layer outputs:\n {}\n", llm::show(out_norm));
    fmt::print("Mean:\n {}\nVariance:\n {}\n", llm::show(norm_mean), llm::show(norm_var));
    // The lesson turns scientific notation off here: torch.set_printoptions(sci_mode=False).
    llm::PrintOptions fixed;
    fixed.sci_mode = false;
    fmt::print("Mean:\n {}\nVariance:\n {}\n", llm::show(norm_mean, fixed), llm::show(norm_var, fixed));

    llm::LayerNorm ln(6);
    ln->to(device);
    const auto out_ln = ln(out);  // [2, 6]
    fmt::print("Mean:\n {}\nVariance:\n {}\n", llm::show(out_ln.mean(-1, true), fixed),
               llm::show(out_ln.var(-1, /*unbiased=*/false, /*keepdim=*/true), fixed));

    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"kind", llm::string_to_tensor("layer_norm")},
                         {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"batch_example", batch_example},
                         {"out", out},
                         {"mean", mean},
                         {"var", var},
                         {"out_norm", out_norm},
                         {"out_ln", out_ln}});
    }
  });
}
