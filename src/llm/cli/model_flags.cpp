#include "llm/cli/model_flags.h"

#include <fmt/format.h>

#include "llm/io/state_dict.h"
#include "llm/reference/recording.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

void add_config_flag(cxxopts::Options& options, const std::string& default_config) {
  options.add_options("Model")("config", "Model config (JSON)",
                               cxxopts::value<std::string>()->default_value(config_file(default_config)), "FILE");
}

void add_model_flags(cxxopts::Options& options, const std::string& default_config) {
  add_config_flag(options, default_config);
  options.add_options("Model")(
      "load-state-dict",
      "Weights to load, for the same config: a torch.save'd state_dict, lesson 5.4's model_and_optimizer.pth, or "
      "safetensors (the lesson's names or Hugging Face's)",
      cxxopts::value<std::string>(), "FILE")(
      "save-state-dict", "Write the model's state_dict here (PyTorch's load_state_dict accepts it, strict)",
      cxxopts::value<std::string>(), "FILE")(
      "save-safetensors", "Write the weights here in Hugging Face's layout, with config.json beside them "
      "(transformers opens the folder, and so does --model-dir)", cxxopts::value<std::string>(), "FILE");
}

ModelConfig model_config_from_flags(const cxxopts::ParseResult& args) {
  return ModelConfig::load(cli::config_flag(args, "config"));
}

GPTConfig config_from_flags(const cxxopts::ParseResult& args) {
  const auto config = model_config_from_flags(args);
  const auto source = args["config"].as<std::string>();
  if (config.family() != GPTModelImpl::kFamily) {
    throw Error(fmt::format("config '{}': this step builds chapter 4's GPT (family \"{}\"); the config's family is \"{}\"",
                            source, GPTModelImpl::kFamily, config.family()));
  }
  return GPTModelImpl::config_from_json(config.settings(), source);
}

void require_context_length(const cxxopts::ParseResult& args, int64_t context_length, int64_t tokens,
                            std::string_view input) {
  if (context_length >= tokens) return;
  const auto source = args.count("checkpoint") != 0
                          ? fmt::format("checkpoint '{}'", args["checkpoint"].as<std::string>())
                          : fmt::format("config '{}'", args["config"].as<std::string>());
  throw Error(fmt::format("{}: context_length {} is shorter than {} ({} tokens); expected at least {}", source,
                          context_length, input, tokens, tokens));
}

std::optional<std::filesystem::path> downloaded_gpt2(std::string_view size) {
  struct Files {
    std::string_view size, folder, lesson_file;  // folder: Hugging Face's layout; lesson_file: the lesson's .pth
  };
  static constexpr Files kFiles[] = {{"124M", "gpt2-124m", "gpt2-small-124M.pth"},
                                     {"355M", "gpt2-355m", "gpt2-medium-355M.pth"},
                                     {"774M", "gpt2-774m", "gpt2-large-774M.pth"},
                                     {"1558M", "gpt2-1558m", "gpt2-xl-1558M.pth"}};
  for (const auto& files : kFiles) {
    if (files.size != size) continue;
    for (const auto& candidate : {model_file(std::string(files.folder) + "/model.safetensors"),
                                  model_file(files.lesson_file)}) {
      std::error_code error;
      if (std::filesystem::exists(candidate, error)) return candidate;
    }
  }
  return std::nullopt;
}

namespace {

// --load-state-dict's weights, when given, then the model onto --device.
void load_weights_from_flags(const cxxopts::ParseResult& args, LanguageModelImpl& model) {
  if (args.count("load-state-dict") != 0) {
    const auto path = args["load-state-dict"].as<std::string>();
    model.load_weights(load_tensors(path), path);
  }
  model.to(cli::device(args));
}

}  // namespace

LanguageModel model_from_flags(const cxxopts::ParseResult& args) {
  auto model = model_config_from_flags(args).make();
  load_weights_from_flags(args, *model);
  return model;
}

GPTModel gpt_model_from_flags(const cxxopts::ParseResult& args) {
  GPTModel model(config_from_flags(args));
  load_weights_from_flags(args, *model);
  return model;
}

void save_weights_flags(const cxxopts::ParseResult& args, const LanguageModelImpl& model) {
  if (args.count("save-state-dict") != 0) save_tensors(args["save-state-dict"].as<std::string>(), state_dict(model));
  if (args.count("save-safetensors") != 0) save_hugging_face(args["save-safetensors"].as<std::string>(), model);
}

void add_weights_dtype_flag(cxxopts::Options& options) {
  options.add_options("Model")("weights-dtype",
                               "How the layers keep their weights for decoding: float32 (as loaded), bfloat16, or int8 "
                               "(per output channel, with float32 scales); fewer bytes read per token, more tokens/s",
                               cxxopts::value<std::string>()->default_value("float32"), "DTYPE");
}

WeightsDtype weights_dtype_from_flags(const cxxopts::ParseResult& args) {
  if (args.count("weights-dtype") == 0) return WeightsDtype::kFloat32;
  const auto name = cli::choice_flag(args, "weights-dtype", {"float32", "bfloat16", "int8"});
  const auto dtype = parse_weights_dtype(name);
  for (const char* flag : {"save-state-dict", "save-safetensors"}) {
    if (dtype != WeightsDtype::kFloat32 && args.count(flag) != 0) {
      throw cli::BadFlagValue(fmt::format(
          "--weights-dtype {} is for decoding, and --{} would save the converted weights; leave one of them out", name,
          flag));
    }
  }
  return dtype;
}

void add_sampling_flags(cxxopts::Options& options, const std::string& default_prompt, int64_t default_max_new_tokens,
                        double default_temperature, int64_t default_top_k) {
  options.add_options("Sampling")("prompt", "Text to continue", cxxopts::value<std::string>()->default_value(default_prompt),
                                  "TEXT")(
      "max-new-tokens", "Tokens to generate at most",
      cxxopts::value<int64_t>()->default_value(std::to_string(default_max_new_tokens)), "N")(
      "temperature", "0: always the most likely token; above 0: sample, flatter as it grows",
      cxxopts::value<double>()->default_value(fmt::format("{}", default_temperature)), "T")(
      "top-k", "Sample only among the k most likely tokens (0: all)",
      cxxopts::value<int64_t>()->default_value(std::to_string(default_top_k)),
      "K")("eos-id", "Stop when this token comes (e.g. 50256, <|endoftext|>)", cxxopts::value<int64_t>(), "ID");
  add_weights_dtype_flag(options);
}

SamplingOptions sampling_from_flags(const cxxopts::ParseResult& args) {
  auto options = SamplingOptions(args["max-new-tokens"].as<int64_t>())
                     .temperature(args["temperature"].as<double>())
                     .top_k(args["top-k"].as<int64_t>());
  if (args.count("eos-id") != 0) options.eos_id(args["eos-id"].as<int64_t>());
  try {
    options.validate();
  } catch (const Error& e) {
    throw cli::BadFlagValue(e.what());
  }
  return options;
}

torch::Tensor generate_from_flags(const cxxopts::ParseResult& args, LanguageModelImpl& model, const torch::Tensor& prompt,
                                  const SamplingOptions& sampling) {
  const uint64_t seed = cli::seed(args);
  torch::manual_seed(seed);
  auto ids = generate(model, prompt, sampling);
  if (args.count("save-outputs") != 0) {
    save_tensors(args["save-outputs"].as<std::string>(), record_sampling(model, seed, sampling, prompt, ids));
  }
  return ids;
}

}  // namespace llm
