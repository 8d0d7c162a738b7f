#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "llm/util/config_field.h"

namespace llm {

/// A training run's settings, with the lesson's names. Defaults are lesson 5.2's run
/// (the 124M model at context 256 on the-verdict). A run config file (JSON) sets any
/// of them; every key is also a flag (--num-epochs for num_epochs; --config for model)
/// that wins over it.
struct TrainConfig {
  /// What the GPT learns, a Task's name (task.h): "pretrain", the next token (chapter
  /// 5), "classify", a class per text from a classification head (chapter 6), or
  /// "instruct", the responses to instructions (chapter 7), or "dpo", preferred over
  /// rejected responses (the ch07/04 bonus).
  std::string task = "pretrain";
  /// The model config (JSON); a relative path is looked up beside the run config,
  /// then in configs/.
  std::string model = "gpt2-small-256.json";
  /// The tokenizer of the text and the samples: gpt2, llama3, qwen3 or gemma3 (the
  /// fetched ones, see tokenizer_json.h), or a Hugging Face tokenizer.json file. Its
  /// ids must fit the model's vocab_size.
  std::string tokenizer = "gpt2";
  /// The training text; a relative path that does not exist is looked up in the data
  /// folder. To classify: the folder of train.csv, validation.csv and test.csv. To
  /// instruct: a JSON list of instruction entries (instruction-data.json); for DPO,
  /// entries with "chosen" and "rejected" responses too.
  std::string data = "the-verdict.txt";
  /// Pretraining: a separate validation text or token file (tools/prepare), read as
  /// `data` is; empty: the last 1 - train_ratio of `data` validates.
  std::string val_data;
  /// Seed of the global generator: weights, dropout and data order.
  int64_t seed = 123;
  /// The first train_ratio of the text's characters (of a token file's tokens) train;
  /// the rest validate.
  double train_ratio = 0.9;
  int64_t batch_size = 2;
  /// Tokens between window starts; 0 means context_length (no overlap).
  int64_t stride = 0;
  /// How pretraining draws its windows: "sliding", the lesson's (windows stride
  /// apart, in a new order each epoch), or "random", nanoGPT's (windows that start at
  /// any token, drawn with replacement, as PyTorch's RandomSampler(replacement=True)
  /// draws them; an epoch is as many windows as `sliding` with no overlap makes), for
  /// corpora where a pass over every window is not the point.
  std::string sampling = "sliding";
  int64_t num_epochs = 10;
  /// AdamW's (peak) learning rate and decoupled weight decay. The notebook's 4e-4;
  /// the lesson's standalone script (gpt_train.py) uses 5e-4.
  double lr = 4e-4;
  double weight_decay = 0.1;
  /// Evaluate after every eval_freq optimizer steps, on eval_iter batches of each split.
  int64_t eval_freq = 5;
  int64_t eval_iter = 5;
  /// After each epoch, continue this text greedily by max_new_tokens tokens (--max-new-tokens).
  std::string start_context = "Every effort moves you";
  int64_t max_new_tokens = 50;
  /// Linear warmup from initial_lr to lr over warmup_steps optimizer steps.
  int64_t warmup_steps = 0;
  double initial_lr = 0.0;
  /// "constant", or "cosine": after warmup, decay to min_lr by the last step.
  std::string lr_schedule = "constant";
  double min_lr = 0.0;
  /// Clip the gradients' total L2 norm to this; 0 means no clipping. Appendix D clips
  /// only once warmup is over (from step warmup_steps on, counting from 0);
  /// clip_during_warmup clips every step.
  double grad_clip = 0.0;
  bool clip_during_warmup = false;
  /// Batches whose gradients add up to one optimizer step.
  int64_t grad_accum = 1;
  /// Stop after this many optimizer steps in all (0: run every epoch).
  int64_t max_steps = 0;
  /// Write a checkpoint every this many optimizer steps (0: only at the end or on
  /// an interrupt).
  int64_t checkpoint_every = 0;
  /// Where the checkpoint, metrics, plot and weights go.
  std::string out_dir = "runs/lesson";

  // Classification (task "classify", lesson 6.5 and its exercises).
  /// Classes of the head that replaces out_head.
  int64_t num_classes = 2;
  /// Which parameters train: "last-block" (the lesson: the last transformer block,
  /// final_norm and the head), "head" (the head alone) or "all".
  std::string trainable = "last-block";
  /// The token whose logits give the class: "last" (the lesson), or "first".
  std::string class_token = "last";
  /// Pad or cut every text to this many tokens; 0: to the longest training text.
  int64_t max_length = 0;

  // Instruction finetuning (task "instruct", chapter 7 and its exercises).
  /// The prompt template: "alpaca" (the lesson) or "phi3" (exercise 7.1).
  std::string prompt_style = "alpaca";
  /// Exercise 7.2: no loss on the prompt's tokens, only on the response's.
  bool mask_instructions = false;

  // Preference tuning (task "dpo", the ch07/04 bonus).
  /// DPO's beta: how strongly the loss holds the policy to the reference (the
  /// notebook's 0.1; the course suggests 0.1 to 0.5).
  double beta = 0.1;
  /// The frozen reference model's weights (a state dict the model's family reads);
  /// empty: the weights the policy starts from (--load-state-dict), or, without
  /// them, the seed's.
  std::string reference;

  // LoRA (appendix E).
  /// Rank of the LoRA added to every Linear layer; the model's own weights are then
  /// frozen, and only the LoRA matrices train (the head's included). 0: no LoRA.
  int64_t lora_rank = 0;
  /// The LoRA update is scaled by lora_alpha / lora_rank (the appendix: 16 / 16).
  double lora_alpha = 16.0;

  bool uses_lora() const { return lora_rank > 0; }
  bool random_windows() const { return sampling == "random"; }

  /// Throws llm::Error naming `source` and the first impossible value.
  void validate(std::string_view source = "training config") const;
};

/// Reads a run config: defaults, then the file's keys; a relative "model" path is made
/// relative to the file's folder when a file of that name is there. Unknown keys,
/// wrong types and impossible values are llm::Errors naming the file and the key.
TrainConfig load_train_config(const std::filesystem::path& path);

/// The same from JSON text; `source` names it in errors.
TrainConfig parse_train_config(std::string_view json, std::string_view source);

/// The same from a parsed JSON object (parse_json_object).
TrainConfig train_config_from_json(const nlohmann::json& settings, std::string_view source);

nlohmann::json to_json(const TrainConfig& config);

/// Where config.model (find_config) and config.data are: the path as given when it
/// exists, else the file of that name in the project's configs or data folder.
std::filesystem::path model_config_path(const TrainConfig& config);
std::filesystem::path data_path(const TrainConfig& config);
/// The same for any data file's name (config.val_data).
std::filesystem::path data_path(const std::string& name);

/// TrainConfig's fields with their keys and help: parsing, printing and the
/// command-line flags (src/llm/cli) all follow this table, so no setting can miss one.
const std::vector<ConfigField<TrainConfig>>& train_settings();

}  // namespace llm
