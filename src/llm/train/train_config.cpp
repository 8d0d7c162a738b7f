#include "llm/train/train_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "llm/train/task.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

namespace llm {

const std::vector<ConfigField<TrainConfig>>& train_settings() {
  static const std::vector<ConfigField<TrainConfig>> kFields = {
      {"task", &TrainConfig::task,
       "pretrain (next token), classify (a class per text, chapter 6) or instruct (responses, chapter 7)"},
      {"model", &TrainConfig::model, "Model config (JSON)"},
      {"tokenizer", &TrainConfig::tokenizer, "Tokenizer: gpt2, llama3, qwen3, gemma3 or a tokenizer.json file"},
      {"data", &TrainConfig::data,
       "Training text (UTF-8); to classify, the folder of train/validation/test.csv; to instruct, the JSON entries"},
      {"val_data", &TrainConfig::val_data,
       "Pretraining: a validation text or token file (empty: the rest of data after train_ratio)"},
      {"seed", &TrainConfig::seed, "Seed of the weights, dropout and data order"},
      {"train_ratio", &TrainConfig::train_ratio, "Share of the text's characters used for training"},
      {"batch_size", &TrainConfig::batch_size, "Windows per batch"},
      {"stride", &TrainConfig::stride, "Tokens between window starts (0: context length)"},
      {"sampling", &TrainConfig::sampling,
       "Pretraining windows: sliding (the lesson's, stride apart, reshuffled each epoch) or random (any start, "
       "drawn with replacement, as nanoGPT)"},
      {"num_epochs", &TrainConfig::num_epochs, "Passes over the training windows"},
      {"lr", &TrainConfig::lr, "AdamW learning rate (the peak, with a schedule)"},
      {"weight_decay", &TrainConfig::weight_decay, "AdamW weight decay"},
      {"eval_freq", &TrainConfig::eval_freq, "Evaluate every this many optimizer steps"},
      {"eval_iter", &TrainConfig::eval_iter, "Batches per split in each evaluation"},
      {"start_context", &TrainConfig::start_context, "Text continued after each epoch"},
      {"max_new_tokens", &TrainConfig::max_new_tokens, "Tokens generated after each epoch"},
      {"warmup_steps", &TrainConfig::warmup_steps, "Linear warmup steps"},
      {"initial_lr", &TrainConfig::initial_lr, "Learning rate at the start of the warmup"},
      {"lr_schedule", &TrainConfig::lr_schedule, "constant or cosine (decay to min_lr after warmup)"},
      {"min_lr", &TrainConfig::min_lr, "Learning rate at the end of a cosine schedule"},
      {"grad_clip", &TrainConfig::grad_clip, "Clip the gradient norm to this (0: off), after warmup as appendix D does"},
      {"clip_during_warmup", &TrainConfig::clip_during_warmup, "Clip during warmup too (the project's earlier variant)"},
      {"grad_accum", &TrainConfig::grad_accum, "Batches accumulated per optimizer step"},
      {"max_steps", &TrainConfig::max_steps, "Stop after this many optimizer steps (0: all epochs)"},
      {"checkpoint_every", &TrainConfig::checkpoint_every, "Checkpoint every this many steps (0: at the end)"},
      {"out_dir", &TrainConfig::out_dir, "Folder for the checkpoint, metrics and plot"},
      {"num_classes", &TrainConfig::num_classes, "To classify: classes of the new output head"},
      {"trainable", &TrainConfig::trainable, "To classify: last-block (the lesson), head or all"},
      {"class_token", &TrainConfig::class_token, "To classify: the token whose logits give the class, last or first"},
      {"max_length", &TrainConfig::max_length, "To classify: pad or cut the texts to this (0: the longest)"},
      {"prompt_style", &TrainConfig::prompt_style, "To instruct: the prompt template, alpaca (the lesson) or phi3"},
      {"mask_instructions", &TrainConfig::mask_instructions,
       "To instruct: no loss on the prompt's tokens (exercise 7.2)"},
      {"beta", &TrainConfig::beta, "DPO: how strongly the loss holds the policy to the reference (the lesson: 0.1)"},
      {"reference", &TrainConfig::reference,
       "DPO: the frozen reference model's weights (empty: the weights the policy starts from)"},
      {"lora_rank", &TrainConfig::lora_rank,
       "LoRA (appendix E): rank of the low-rank update added to every Linear, which alone trains (0: no LoRA)"},
      {"lora_alpha", &TrainConfig::lora_alpha, "LoRA: the update is scaled by lora_alpha / lora_rank"},
  };
  return kFields;
}

void TrainConfig::validate(std::string_view source) const {
  const auto fail = [&](std::string_view key, std::string_view expected, auto value) {
    throw Error(fmt::format("{}: {} must be {}, got {}", source, key, expected, value));
  };
  const auto quoted = [](const std::string& text) { return fmt::format("\"{}\"", text); };
  const auto& tasks = task_names();
  if (std::find(tasks.begin(), tasks.end(), task) == tasks.end()) fail("task", task_choices(), quoted(task));
  if (model.empty()) fail("model", "a config file", "\"\"");
  if (tokenizer.empty()) fail("tokenizer", "a tokenizer's name or file", "\"\"");
  if (data.empty()) fail("data", "a text file", "\"\"");
  if (seed < 0) fail("seed", ">= 0", seed);
  if (!(train_ratio > 0.0 && train_ratio < 1.0)) fail("train_ratio", "between 0 and 1", train_ratio);
  if (batch_size <= 0) fail("batch_size", "positive", batch_size);
  if (stride < 0) fail("stride", "positive (or 0: the context length)", stride);
  if (sampling != "sliding" && sampling != "random") fail("sampling", "\"sliding\" or \"random\"", quoted(sampling));
  if (num_epochs <= 0) fail("num_epochs", "positive", num_epochs);
  if (!(lr > 0.0 && std::isfinite(lr))) fail("lr", "positive", lr);
  if (!(weight_decay >= 0.0 && std::isfinite(weight_decay))) fail("weight_decay", ">= 0", weight_decay);
  if (eval_freq <= 0) fail("eval_freq", "positive", eval_freq);
  if (eval_iter <= 0) fail("eval_iter", "positive", eval_iter);
  if (start_context.empty()) fail("start_context", "some text", "\"\"");
  if (max_new_tokens < 0) fail("max_new_tokens", ">= 0", max_new_tokens);
  if (warmup_steps < 0) fail("warmup_steps", ">= 0", warmup_steps);
  if (!(initial_lr >= 0.0 && initial_lr <= lr)) fail("initial_lr", fmt::format("in [0, lr = {}]", lr), initial_lr);
  if (lr_schedule != "constant" && lr_schedule != "cosine") {
    fail("lr_schedule", "\"constant\" or \"cosine\"", fmt::format("\"{}\"", lr_schedule));
  }
  if (!(min_lr >= 0.0 && min_lr <= lr)) fail("min_lr", fmt::format("in [0, lr = {}]", lr), min_lr);
  if (!(grad_clip >= 0.0 && std::isfinite(grad_clip))) fail("grad_clip", ">= 0", grad_clip);
  if (grad_accum <= 0) fail("grad_accum", "positive", grad_accum);
  if (max_steps < 0) fail("max_steps", ">= 0", max_steps);
  if (checkpoint_every < 0) fail("checkpoint_every", ">= 0", checkpoint_every);
  if (num_classes < 2) fail("num_classes", "at least 2", num_classes);
  if (trainable != "last-block" && trainable != "head" && trainable != "all") {
    fail("trainable", "\"last-block\", \"head\" or \"all\"", quoted(trainable));
  }
  if (class_token != "last" && class_token != "first") {
    fail("class_token", "\"last\" or \"first\"", quoted(class_token));
  }
  if (max_length < 0) fail("max_length", ">= 0 (0: the longest training text)", max_length);
  if (lora_rank < 0) fail("lora_rank", ">= 0 (0: no LoRA)", lora_rank);
  if (!(lora_alpha > 0.0 && std::isfinite(lora_alpha))) fail("lora_alpha", "positive", lora_alpha);
  if (!(beta > 0.0 && std::isfinite(beta))) fail("beta", "positive", beta);
  if (prompt_style != "alpaca" && prompt_style != "phi3") {
    fail("prompt_style", "\"alpaca\" or \"phi3\"", quoted(prompt_style));
  }
  make_task(task)->check_config(*this, source);  // what only some tasks can use
  // The settings are saved as JSON in every checkpoint and metrics file, and JSON
  // holds UTF-8 only: a file name or text that is not would cost the run its results.
  for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"model", model}, {"tokenizer", tokenizer},
                                  {"data", data}, {"val_data", val_data}, {"start_context", start_context}, {"reference", reference},
                                  {"out_dir", out_dir}}) {
    check_utf8(text, fmt::format("{}: {}", source, key));
  }
}

TrainConfig train_config_from_json(const nlohmann::json& settings, std::string_view source) {
  TrainConfig config;
  read_fields(settings, train_settings(), config, "training config", source);
  config.validate(fmt::format("training config '{}'", source));
  return config;
}

TrainConfig parse_train_config(std::string_view text, std::string_view source) {
  const auto settings = parse_json_object(text, "training config", source);
  if (settings.contains("sample_tokens")) {
    throw Error(fmt::format("training config '{}': 'sample_tokens' is now 'max_new_tokens'", source));
  }
  return train_config_from_json(settings, source);
}

TrainConfig load_train_config(const std::filesystem::path& path) {
  auto config = parse_train_config(read_file(path), path.string());
  const std::filesystem::path model(config.model);
  if (model.is_relative() && std::filesystem::exists(path.parent_path() / model)) {
    config.model = (path.parent_path() / model).string();
  }
  return config;
}

nlohmann::json to_json(const TrainConfig& config) { return fields_to_json(config, train_settings()); }

std::filesystem::path model_config_path(const TrainConfig& config) { return find_config(config.model); }

std::filesystem::path data_path(const TrainConfig& config) { return data_path(config.data); }

std::filesystem::path data_path(const std::string& name) {
  const std::filesystem::path path(name);
  if (!path.is_relative() || std::filesystem::exists(path)) return path;
  auto in_data = data_file(name);
  if (!std::filesystem::exists(in_data)) {
    throw Error(fmt::format("file '{}': not found, here or in the data folder '{}' (scripts/fetch-data.sh puts "
                            "the-verdict.txt and moby-dick.txt there)",
                            name, in_data.parent_path().string()));
  }
  return in_data;
}

}  // namespace llm
