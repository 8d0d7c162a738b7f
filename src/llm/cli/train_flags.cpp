#include "llm/cli/train_flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <type_traits>
#include <variant>

#include "llm/io/state_dict.h"
#include "llm/model/hf_folder.h"
#include "llm/model/model_config.h"
#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/train/checkpoint.h"
#include "llm/train/run_folder.h"
#include "llm/train/task.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

// The flag of a run setting: its key with dashes; the model config is every model
// executable's --config.
std::string flag_name(std::string_view key) {
  if (key == "model") return "config";
  std::string name(key);
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// A whole number from the flag `flag`, else from the environment.
std::optional<int64_t> flag_or_environment(const cxxopts::ParseResult& args, const std::string& flag,
                                           std::optional<int64_t> from_environment) {
  return args.count(flag) != 0 ? std::optional<int64_t>(args[flag].as<int64_t>()) : from_environment;
}

}  // namespace

void add_distributed_flags(cxxopts::Options& options) {
  options.add_options("Distributed (torchrun's environment variables, or these flags)")(
      "world-size", "Processes in the run (WORLD_SIZE); without it, one process", cxxopts::value<int64_t>(), "N")(
      "rank", "This process's rank, 0 .. N-1 (RANK)", cxxopts::value<int64_t>(), "R")(
      "local-rank", "Its rank on this machine (LOCAL_RANK); picks cuda:LOCAL_RANK with --device cuda",
      cxxopts::value<int64_t>(), "R")("master-addr", "Rank 0's host (MASTER_ADDR)", cxxopts::value<std::string>(),
                                      "HOST")(
      "master-port", "Rank 0's rendezvous port (MASTER_PORT)", cxxopts::value<int64_t>(), "PORT")(
      "dist-timeout", "Seconds to wait for the other ranks before giving up",
      cxxopts::value<int64_t>()->default_value("300"), "S");
}

std::optional<DistributedConfig> distributed_config_from_flags(const cxxopts::ParseResult& args) {
  const auto env = read_distributed_environment();
  const auto world_size = flag_or_environment(args, "world-size", env.world_size);
  if (!world_size) return std::nullopt;
  const int64_t timeout = args["dist-timeout"].as<int64_t>();
  if (timeout <= 0) throw cli::BadFlagValue(fmt::format("--dist-timeout must be positive, got {}", timeout));
  DistributedConfig config;
  config.world_size = *world_size;
  config.rank = flag_or_environment(args, "rank", env.rank).value_or(0);
  config.local_rank = flag_or_environment(args, "local-rank", env.local_rank).value_or(config.rank);
  config.master_port = flag_or_environment(args, "master-port", env.master_port).value_or(config.master_port);
  config.master_addr = args.count("master-addr") != 0 ? args["master-addr"].as<std::string>()
                                                      : env.master_addr.value_or(config.master_addr);
  config.timeout = std::chrono::seconds(timeout);
  config.rendezvous_file = env.rendezvous_file.value_or("");
  try {
    config.validate();
  } catch (const Error& e) {
    throw cli::BadFlagValue(e.what());  // a flag's value, or its environment variable's
  }
  return config;
}

void add_train_flags(cxxopts::Options& options, std::string_view task) {
  auto adder = options.add_options("Training");
  const auto runs = task.empty() ? nullptr : make_task(task);
  for (const auto& setting : train_settings()) {
    if (setting.key == "seed") continue;  // every executable's --seed
    if (runs && (setting.key == "task" || !runs->reads(setting.key))) continue;
    const auto name = flag_name(setting.key), help = std::string(setting.help);
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(std::declval<TrainConfig&>().*member)>;
          adder(name, help, cxxopts::value<Value>(),
                std::is_same_v<Value, int64_t>  ? "N"
                : std::is_same_v<Value, double> ? "X"
                : std::is_same_v<Value, bool>   ? ""
                                                : "S");
        },
        setting.member);
  }
}

void apply_train_flags(TrainConfig& config, const cxxopts::ParseResult& args) {
  bool changed = false;
  for (const auto& setting : train_settings()) {
    const auto name = flag_name(setting.key);
    if (setting.key == "seed" || args.count(name) == 0) continue;
    std::visit([&](auto member) { config.*member = args[name].as<std::remove_reference_t<decltype(config.*member)>>(); },
               setting.member);
    changed = true;
  }
  if (args.count("seed") != 0) {
    const uint64_t seed = args["seed"].as<uint64_t>();
    if (seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw cli::BadFlagValue(fmt::format("--seed: a run's seed is at most {}, got {}",
                                          std::numeric_limits<int64_t>::max(), seed));
    }
    config.seed = static_cast<int64_t>(seed);
    changed = true;
  }
  if (!changed) return;  // the file's values were checked when it was read
  try {
    config.validate("flags");
  } catch (const Error& e) {
    throw cli::BadFlagValue(e.what());
  }
}

void add_run_flags(cxxopts::Options& options, const std::string& default_train_config, std::string_view task) {
  options.add_options("Run")("train-config", "Run settings (JSON); flags override them",
                             cxxopts::value<std::string>()->default_value(config_file(default_train_config)), "FILE")(
      "resume", "Continue the run saved in this checkpoint (its settings, changed by the flags given)",
      cxxopts::value<std::string>(), "FILE")(
      "load-state-dict", "Start a new run from these weights: a state dict, or lesson 5.4's model_and_optimizer.pth "
      "(then with its AdamW state too)", cxxopts::value<std::string>(), "FILE")(
      "overwrite", "Replace a checkpoint that out_dir already holds from another run (else the run is refused)");
  add_train_flags(options, task);
  add_distributed_flags(options);
}

torch::Device run_device(const cxxopts::ParseResult& args, const std::optional<DistributedConfig>& distributed) {
  const auto device = cli::device(args);
  if (!distributed || !device.is_cuda() || device.has_index()) return device;
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(distributed->local_rank));
}

namespace {

TrainingRun new_run(const cxxopts::ParseResult& args, const std::string& untrained_config) {
  TrainingRun run;
  const bool untrained = !untrained_config.empty() && args.count("train-config") == 0 &&
                         args.count("load-state-dict") == 0;
  run.config = load_train_config(untrained ? config_file(untrained_config) : cli::config_flag(args, "train-config"));
  apply_train_flags(run.config, args);
  run.model_config = ModelConfig::load(model_config_path(run.config));
  if (args.count("load-state-dict") != 0) {
    run.initial_weights_path = args["load-state-dict"].as<std::string>();
    run.initial_weights = load_tensors(run.initial_weights_path);
  }
  return run;
}

// What a resumed run cannot change: the model's LoRA layers (the checkpoint's weights
// have them or not), and the end of a run that has reached it.
void check_resumable(const TrainingRun& run, const TrainConfig& stored, const cxxopts::ParseResult& args) {
  if (run.config.lora_rank != stored.lora_rank) {
    throw cli::BadFlagValue(fmt::format("--lora-rank: a resumed run keeps its model as the checkpoint has it "
                                        "(lora_rank {}), got {}",
                                        stored.lora_rank, run.config.lora_rank));
  }
  const auto epoch = checkpoint_counter(run.checkpoint, "epoch", run.checkpoint_path);
  const auto step = checkpoint_counter(run.checkpoint, "step", run.checkpoint_path);
  const bool epochs_done = epoch >= run.config.num_epochs;
  const bool steps_done = run.config.max_steps > 0 && step >= run.config.max_steps;
  if (!epochs_done && !steps_done) return;
  const auto done = fmt::format("{} epochs ({} steps)", epoch, step);
  if (args.count("num-epochs") != 0 || args.count("max-steps") != 0) {
    throw cli::BadFlagValue(fmt::format("{} {}: the checkpoint's run has done {}; nothing is left to train",
                                        epochs_done ? "--num-epochs" : "--max-steps",
                                        epochs_done ? run.config.num_epochs : run.config.max_steps, done));
  }
  throw Error(fmt::format("checkpoint '{}': its run is complete, {}; train on with a larger --num-epochs{}",
                          run.checkpoint_path, done, steps_done ? " or --max-steps" : ""));
}

TrainingRun resumed_run(const cxxopts::ParseResult& args) {
  if (args.count("train-config") != 0 || args.count("config") != 0 || args.count("load-state-dict") != 0) {
    throw cli::BadFlagValue(
        "--resume continues the checkpoint's run with its own settings, model and weights; leave out "
        "--train-config, --config and --load-state-dict (other flags change the settings)");
  }
  TrainingRun run;
  run.checkpoint_path = args["resume"].as<std::string>();
  run.checkpoint = load_checkpoint(run.checkpoint_path);
  const auto stored = checkpoint_train_config(run.checkpoint, run.checkpoint_path);
  run.config = stored;
  // The run goes on in the checkpoint's own folder, wherever the program is started
  // (the out_dir stored in it is relative to where the run began, and could name any
  // folder); --out-dir takes it elsewhere.
  const auto folder = std::filesystem::path(run.checkpoint_path).parent_path();
  run.config.out_dir = folder.empty() ? "." : folder.string();
  apply_train_flags(run.config, args);
  check_resumable(run, stored, args);
  run.model_config = checkpoint_model_config(run.checkpoint, run.checkpoint_path);
  return run;
}

}  // namespace

TrainingRun training_run_from_flags(const cxxopts::ParseResult& args, const std::string& untrained_config) {
  auto distributed = distributed_config_from_flags(args);  // its flags first: they need no file
  TrainingRun run = args.count("resume") != 0 ? resumed_run(args) : new_run(args, untrained_config);
  run.distributed = std::move(distributed);
  if (run.distributed && run.config.random_windows()) {
    throw cli::BadFlagValue("sampling \"random\" runs in one process; a data-parallel run reads sliding windows, "
                            "each rank its DistributedSampler share");
  }
  // Another run's checkpoint in out_dir is continued with --resume, replaced only with
  // --overwrite (two runs at once into one folder are stopped by the trainer's lock).
  if (!run.distributed || run.distributed->rank == 0) {
    RunFolder(run.config.out_dir).check_free(run.checkpoint_path, args["overwrite"].as<bool>());
  }
  return run;
}

void require_task(const TrainingRun& run, const Task& task) {
  if (run.config.task == task.name()) return;
  throw cli::BadFlagValue(fmt::format("this step {}: the run's task must be \"{}\", got \"{}\" (ch05-02-train "
                                      "pretrains, ch06-04-finetune classifies, ch07-03-finetune follows instructions, ch07-07-dpo tunes "
                                      "preferences)",
                                      task.does(), task.name(), run.config.task));
}

void add_trained_model_flags(cxxopts::Options& options, const std::string& default_config) {
  options.add_options("Model")("checkpoint", "A training checkpoint (its config and weights)",
                               cxxopts::value<std::string>(), "FILE")(
      "model-dir", "A model folder as the Hugging Face Hub holds it (config.json, safetensors, tokenizer.json): "
      "GPT-2, Llama 3.2, Qwen3 (dense or MoE) or Gemma 3",
      cxxopts::value<std::string>(), "DIR");
  add_model_flags(options, default_config);
}

PromptStyle prompt_style_flag(const cxxopts::ParseResult& args) {
  return parse_prompt_style(cli::choice_flag(args, "prompt-style", {"alpaca", "phi3"}));
}

namespace {

// --checkpoint and --model-dir each bring their config and weights.
void check_model_source_flags(const cxxopts::ParseResult& args) {
  const bool folder = args.count("model-dir") != 0, checkpoint = args.count("checkpoint") != 0;
  if (folder && checkpoint) throw cli::BadFlagValue("--checkpoint and --model-dir each hold a model; give one of them");
  if ((folder || checkpoint) && (args.count("config") != 0 || args.count("load-state-dict") != 0)) {
    throw cli::BadFlagValue(fmt::format("{} holds its own config and weights; leave out --config and --load-state-dict",
                                        folder ? "--model-dir" : "--checkpoint"));
  }
}

}  // namespace

TrainedModel trained_model_from_flags(const cxxopts::ParseResult& args,
                                      const std::function<BpeTokenizer()>& default_tokenizer) {
  check_model_source_flags(args);
  // Every Linear is converted as it is drawn, and loaded weights as each is copied in: a
  // bfloat16 or int8 model never holds its float32 weights all at once.
  const ConvertLinearsWhenBuilt converted(weights_dtype_from_flags(args));
  if (args.count("model-dir") != 0) {
    const HfModelFolder folder(args["model-dir"].as<std::string>());
    auto tokenizer = folder.tokenizer();  // the small file first: its errors come before the weights' read
    auto model = folder.load_model();
    model->to(cli::device(args));
    return {model, std::move(tokenizer), folder.bos_id(), std::nullopt};
  }
  auto tokenizer = default_tokenizer();
  if (args.count("checkpoint") == 0) return {model_from_flags(args), std::move(tokenizer), std::nullopt, std::nullopt};
  const auto path = args["checkpoint"].as<std::string>();
  auto checkpoint = load_checkpoint(path);
  auto train_config = checkpoint_train_config(checkpoint, path);
  auto model = checkpoint_model(std::move(checkpoint), path);
  model->to(cli::device(args));
  return {model, std::move(tokenizer), std::nullopt, std::move(train_config)};
}

std::string model_source(const cxxopts::ParseResult& args) {
  if (args.count("checkpoint") != 0) return fmt::format("the checkpoint '{}'", args["checkpoint"].as<std::string>());
  if (args.count("model-dir") != 0) {
    return fmt::format("the Hugging Face folder '{}'", args["model-dir"].as<std::string>());
  }
  if (args.count("load-state-dict") != 0) {
    return fmt::format("the state dict '{}'", args["load-state-dict"].as<std::string>());
  }
  return fmt::format("none: an untrained model, random weights of --seed {} (--checkpoint or --load-state-dict "
                     "loads trained ones)",
                     cli::seed(args));
}

}  // namespace llm
