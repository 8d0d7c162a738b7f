// Lesson 5.5: OpenAI's pretrained GPT-2 in the lesson's GPTModel. The weights come
// from scripts/download-gpt2.sh (models/gpt2-124m/model.safetensors, Hugging Face's
// layout, or the lesson's gpt2-small-124M.pth) or from --load-state-dict; the config
// is the size's (configs/gpt2-124m.json: qkv_bias, context 1024). Then the lesson's
// generation: "Every effort moves you", top-k 50, temperature 1.5, after seed 123.
#include <fmt/format.h>

#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/model/gpt_weights.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

struct Size {
  const char* name;
  const char* config;
};
constexpr Size kSizes[] = {
    {"124M", "gpt2-124m"}, {"355M", "gpt2-355m"}, {"774M", "gpt2-774m"}, {"1558M", "gpt2-1558m"}};

const Size& size_from_flag(const std::string& name) {
  for (const auto& size : kSizes) {
    if (name == size.name) return size;
  }
  throw llm::cli::BadFlagValue(fmt::format("--size must be 124M, 355M, 774M or 1558M, got '{}'", name));
}

// --load-state-dict, else what scripts/download-gpt2.sh put in models/.
std::filesystem::path weights_file(const cxxopts::ParseResult& args, const Size& size) {
  if (args.count("load-state-dict") != 0) return args["load-state-dict"].as<std::string>();
  if (auto downloaded = llm::downloaded_gpt2(size.name)) return *downloaded;
  throw llm::Error(fmt::format("no GPT-2 {} weights in '{}': scripts/download-gpt2.sh {} fetches them (or pass a file "
                               "with --load-state-dict)",
                               size.name, llm::model_file("").string(), size.name));
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch05-04-pretrained-gpt2", "OpenAI's pretrained GPT-2 weights, and text from them");
  options.add_options("Model")("size", "GPT-2's size: 124M, 355M, 774M or 1558M",
                               cxxopts::value<std::string>()->default_value("124M"), "SIZE");
  llm::add_model_flags(options, "gpt2-124m.json");
  llm::add_sampling_flags(options, "Every effort moves you", 25, /*temperature=*/1.5, /*top_k=*/50);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto& size = size_from_flag(args["size"].as<std::string>());
    const auto sampling = llm::sampling_from_flags(args);
    const auto config = args.count("config") != 0 ? llm::cli::config_flag(args, "config")
                                                  : llm::config_file(std::string(size.config) + ".json");
    llm::GPTModel model(llm::load_gpt_config(config));
    const auto weights = weights_file(args, size);
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    llm::load_gpt_weights(*model, llm::load_tensors(weights), weights.string());
    model->to(llm::cli::device(args));
    model->eval();
    const int64_t parameters = llm::parameter_count(*model);
    const bool tied = llm::is_tied(model->out_head->weight, model->tok_emb->weight);
    fmt::print("Weights: '{}'\nConfig: '{}': {} layers, {} heads, emb_dim {}, context {}, qkv_bias {}\n",
               weights.string(), config.string(), model->config.n_layers, model->config.n_heads,
               model->config.emb_dim, model->config.context_length, model->config.qkv_bias ? "true" : "false");
    fmt::print("Parameters: {} ({} with the output head tied to the token embedding{})\n", llm::thousands(parameters),
               llm::thousands(parameters - model->out_head->weight.numel()), tied ? ", as these weights are" : "");

    const auto prompt = llm::text_to_token_ids(tokenizer, args["prompt"].as<std::string>()).to(llm::cli::device(args));
    const auto token_ids = llm::generate_from_flags(args, *model, prompt, sampling);  // seeded right before
    fmt::print("Output text:\n {}\n", llm::token_ids_to_text(tokenizer, token_ids));
    llm::save_weights_flags(args, *model);
  });
}
