#include "llm/train/train_flags.h"

#include <fmt/format.h>

#include "llm/io/state_dict.h"
#include "llm/model/gpt_config.h"
#include "llm/util/cli.h"
#include "llm/model/model_flags.h"
#include "llm/train/checkpoint.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

void add_run_flags(cxxopts::Options& options, const std::string& default_train_config) {
  options.add_options("Run")("train-config", "Run settings (JSON); flags override them",
                             cxxopts::value<std::string>()->default_value(config_file(default_train_config)), "FILE")(
      "resume", "Continue the run saved in this checkpoint (its settings, changed by the flags given)",
      cxxopts::value<std::string>(), "FILE");
  add_train_flags(options);
}

std::unique_ptr<Trainer> trainer_from_flags(const cxxopts::ParseResult& args, const BpeTokenizer& tokenizer) {
  if (args.count("resume") == 0) {
    auto config = load_train_config(args["train-config"].as<std::string>());
    apply_train_flags(config, args);
    return std::make_unique<Trainer>(config, load_gpt_config(model_config_path(config)), tokenizer, cli::device(args));
  }
  if (args.count("train-config") != 0 || args.count("config") != 0) {
    throw Error("--resume continues the checkpoint's run with its own settings and model; leave out --train-config "
                "and --config (other flags change the settings)");
  }
  const auto path = args["resume"].as<std::string>();
  const auto checkpoint = load_checkpoint(path);
  auto config = checkpoint_train_config(checkpoint, path);
  apply_train_flags(config, args);
  return std::make_unique<Trainer>(config, checkpoint, path, tokenizer, cli::device(args));
}

void add_trained_model_flags(cxxopts::Options& options) {
  options.add_options("Model")("checkpoint", "A training checkpoint (its config and weights)",
                               cxxopts::value<std::string>(), "FILE");
  add_model_flags(options);
}

GPTModel trained_model_from_flags(const cxxopts::ParseResult& args) {
  if (args.count("checkpoint") == 0) return model_from_flags(args);
  if (args.count("config") != 0 || args.count("load-state-dict") != 0) {
    throw Error("--checkpoint holds its own config and weights; leave out --config and --load-state-dict");
  }
  const auto path = args["checkpoint"].as<std::string>();
  const auto checkpoint = load_checkpoint(path);
  GPTModel model(checkpoint_model_config(checkpoint, path));
  load_state_dict(*model, checkpoint_weights(checkpoint), fmt::format("checkpoint '{}': model", path));
  model->to(cli::device(args));
  return model;
}

}  // namespace llm
