#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/dataset.h"

namespace llm {

/// One entry of lesson 7.2's instruction data (Alpaca's JSON shape): the instruction,
/// an optional input, and the desired output; 7.7 adds the model's response.
struct InstructionEntry {
  std::string instruction;
  std::string input;
  std::string output;
  std::optional<std::string> model_response;  // absent until 7.7 gives one (which may be empty)
};

/// The prompt template: "alpaca" (lesson 7.2's "### Instruction:" and "### Response:")
/// or "phi3" (exercise 7.1's "<|user|>" and "<|assistant|>:").
enum class PromptStyle { kAlpaca, kPhi3 };

/// "alpaca" or "phi3" as a PromptStyle; an llm::Error for anything else.
PromptStyle parse_prompt_style(std::string_view name);

/// The style's name: "alpaca" or "phi3".
std::string_view prompt_style_name(PromptStyle style);

/// The entries of an instruction-data JSON file: a list of objects, each with string
/// "instruction" and "output" and, optionally, "input" and "model_response" (other
/// keys are ignored).
/// Anything else is an llm::Error naming the file and the entry.
std::vector<InstructionEntry> read_instruction_data(const std::filesystem::path& path);

/// The same from JSON text; `source` names it in errors. Each of `required` (the
/// preference data's "chosen" and "rejected") must be a string of every entry too: its
/// values go to `values`, one list per entry, in the order of `required`.
std::vector<InstructionEntry> parse_instruction_data(std::string_view json, std::string_view source,
                                                     const std::vector<std::string>& required = {},
                                                     std::vector<std::vector<std::string>>* values = nullptr);

/// Lesson 7.2's format_input: the instruction, and the input when there is one, in
/// the prompt style's template. Alpaca: "Below is an instruction that describes a
/// task. Write a response that appropriately completes the request.\n\n###
/// Instruction:\n...[\n\n### Input:\n...]"; Phi-3: "<|user|>\n...[\n...]".
std::string format_input(const InstructionEntry& entry, PromptStyle style = PromptStyle::kAlpaca);

/// What follows the prompt in a training text: "\n\n### Response:\n" and the output
/// (Phi-3: "\n<|assistant|>:\n" and the output).
std::string format_response(const InstructionEntry& entry, PromptStyle style = PromptStyle::kAlpaca);

/// Lesson 7.7's response of a generated text: what follows the prompt (`input_text`,
/// which the generated text starts with), the response marker ("### Response:", or
/// "<|assistant|>:") removed, and stripped of whitespace as Python's str.strip().
std::string extract_response(std::string_view generated_text, std::string_view input_text,
                             PromptStyle style = PromptStyle::kAlpaca);

/// Lesson 7.8's prompt for the larger model that scores a response: the entry's
/// prompt, its correct output and its model_response, "on a scale from 0 to 100",
/// "Respond with the integer number only."
std::string score_prompt(const InstructionEntry& entry, PromptStyle style = PromptStyle::kAlpaca);

/// Lesson 7.2's split, in file order: the first int(n * train_frac) entries train, the
/// next int(n * test_frac) test, and the rest validate (935 / 110 / 55 of 1,100).
struct InstructionSplits {
  std::vector<InstructionEntry> train, test, validation;
};
InstructionSplits split_instruction_data(const std::vector<InstructionEntry>& entries, double train_frac = 0.85,
                                         double test_frac = 0.1);

/// The entries as lesson 7.7 writes instruction-data-with-response.json: Python's
/// json.dump(entries, indent=4), each entry's keys in the order instruction, input,
/// output, model_response, non-ASCII characters escaped.
std::string instruction_data_json(const std::vector<InstructionEntry>& entries);

/// Lesson 7.3's InstructionDataset with custom_collate_fn as its batching: each entry
/// is tokenized once (prompt and response); a batch pads its texts with pad_token_id
/// to its longest text plus one, shifts the targets one to the right, replaces every
/// padding target but the first with ignore_index, and cuts inputs and targets to
/// allowed_max_length. Exercise 7.2's mask_instructions also sets the targets of the
/// prompt's tokens (all but its last) to ignore_index.
class InstructionDataset final : public Dataset {
 public:
  struct Options {
    PromptStyle style = PromptStyle::kAlpaca;
    int64_t pad_token_id = 50256;
    int64_t ignore_index = -100;
    /// 0: no cut.
    int64_t allowed_max_length = 1024;
    bool mask_instructions = false;
  };

  InstructionDataset(const std::vector<InstructionEntry>& entries, const BpeTokenizer& tokenizer, Options options);
  int64_t size() const override { return static_cast<int64_t>(encoded_texts_.size()); }
  /// custom_collate_fn of the entries in `indices`: (inputs, targets), each
  /// [indices.size(0), length of the batch].
  std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& indices) const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
  std::vector<std::vector<int64_t>> encoded_texts_;
  std::vector<int64_t> instruction_lengths_;  // tokens of each prompt, for mask_instructions
};

/// custom_collate_fn on token-id lists: the lesson's toy example collates
/// [0, 1, 2, 3, 4], [5, 6] and [7, 8, 9] into inputs ending [7, 8, 9, 50256, 50256]
/// and targets ending [8, 9, 50256, -100, -100]. `instruction_lengths` (empty, or one
/// per text) masks each text's prompt as exercise 7.2 does.
std::pair<torch::Tensor, torch::Tensor> custom_collate(const std::vector<std::vector<int64_t>>& batch,
                                                       const InstructionDataset::Options& options = {},
                                                       const std::vector<int64_t>& instruction_lengths = {});

}  // namespace llm
