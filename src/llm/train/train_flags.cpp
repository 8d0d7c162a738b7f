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
  add_distributed_flags(options);
}

namespace {

// The process group of a data-parallel run (null for one process), and the device:
// with --device cuda, each rank takes the GPU of its local rank.
std::shared_ptr<ProcessGroup> group_from_flags(const cxxopts::ParseResult& args) {
  const auto config = distributed_config_from_flags(args);
  return config ? std::make_shared<ProcessGroup>(*config) : nullptr;
}

torch::Device run_device(const cxxopts::ParseResult& args, const std::shared_ptr<ProcessGroup>& group) {
  const auto device = cli::device(args);
  if (!group || !device.is_cuda() || device.has_index()) return device;
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(group->config().local_rank));
}

}  // namespace

std::unique_ptr<Trainer> trainer_from_flags(const cxxopts::ParseResult& args, const BpeTokenizer& tokenizer) {
  if (args.count("resume") == 0) {
    auto config = load_train_config(args["train-config"].as<std::string>());
    apply_train_flags(config, args);
    const auto model_config = load_gpt_config(model_config_path(config));
    auto group = group_from_flags(args);
    const auto device = run_device(args, group);
    return std::make_unique<Trainer>(config, model_config, tokenizer, device, std::move(group));
  }
  if (args.count("train-config") != 0 || args.count("config") != 0) {
    throw Error("--resume continues the checkpoint's run with its own settings and model; leave out --train-config "
                "and --config (other flags change the settings)");
  }
  const auto path = args["resume"].as<std::string>();
  const auto checkpoint = load_checkpoint(path);
  auto config = checkpoint_train_config(checkpoint, path);
  apply_train_flags(config, args);
  auto group = group_from_flags(args);
  const auto device = run_device(args, group);
  return std::make_unique<Trainer>(config, checkpoint, path, tokenizer, device, std::move(group));
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
