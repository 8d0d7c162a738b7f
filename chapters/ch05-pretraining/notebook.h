#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/text/chat_format.h"

namespace lesson {

/// The cells of the course's standalone notebooks (standalone-llama32,
/// standalone-qwen3, standalone-gemma3 and their -plus-kvcache twins) that print
/// something, as this step prints them.
enum class Cell {
  kModel,       // print(model), PyTorch's text
  kLogits,      // model(torch.tensor([1, 2, 3]).unsqueeze(0))
  kParameters,  // "Total number of parameters" and "... unique parameters" (without tok_emb)
  kMemory,      // calc_model_memory_size in float32 and bfloat16
  kWeights,     // where the weights came from, and "Model uses weight tying."
  kPrompt,      // the chat-wrapped prompt's ids, decoded, as Python's repr
  kStream,      // generate_text_basic_stream: the new text, the speed and the peak memory
  kTimed,       // chapter 5's generate(): "Time: ... sec", the peak memory, "Output text:"
};

/// One notebook: the step's name, its defaults and the cells it prints, in order.
struct Notebook {
  std::string program;
  std::string description;
  /// The flag that picks this notebook among a step's variants ("moe"), and what it
  /// says in --help; empty for the step's first notebook.
  std::string flag;
  std::string flag_help;
  std::string config;     // configs/<config>: the notebook's config dict
  std::string tokenizer;  // tokenizer_named(): the model's tokenizer.json
  llm::ChatFormat chat;
  llm::ChatOptions chat_options;
  std::string prompt;
  int64_t max_new_tokens;  // the notebook's, for real weights
  /// Whether generation stops at the end of the assistant's turn (the notebook passes
  /// the tokenizer's eos_token_id) unless --eos-id says otherwise.
  bool stops_at_turn_end;
  std::vector<Cell> cells;
};

/// The step: flags (the model flags, --model-dir, sampling, --kv-cache, and each
/// variant's flag), then the cells of the notebook the flags pick: the first of
/// `notebooks` unless another's flag is given, whose defaults then apply. Without
/// weights (--model-dir, --checkpoint or --load-state-dict) the model is the notebook's,
/// seeded and random, which it says; it then generates only a few tokens unless
/// --max-new-tokens asks for more. Returns the exit code.
int run_notebook(int argc, char** argv, const std::vector<Notebook>& notebooks);

}  // namespace lesson
