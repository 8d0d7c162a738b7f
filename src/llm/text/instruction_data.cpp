#include "llm/text/instruction_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

// Python's str.isspace() for a code point: what str.strip() removes.
bool python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The code point of the well-formed UTF-8 sequence at text[i], and its length.
std::pair<char32_t, size_t> code_point_at(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const auto sequence = utf8_sequence_at(text, i);
  if (sequence.needed == 0 || sequence.valid != sequence.needed) return {0xFFFD, 1};
  char32_t c = sequence.needed == 1 ? lead : lead & (0xFF >> (sequence.needed + 1));
  for (size_t k = 1; k < sequence.needed; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  return {c, sequence.needed};
}

// Python's str.strip() on UTF-8 text.
std::string_view python_strip(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size()) {
    const auto [c, n] = code_point_at(text, begin);
    if (!python_space(c)) break;
    begin += n;
  }
  size_t end = begin, kept = begin;  // `kept`: the end of the last non-space code point
  while (end < text.size()) {
    const auto [c, n] = code_point_at(text, end);
    end += n;
    if (!python_space(c)) kept = end;
  }
  return text.substr(begin, kept - begin);
}

// Every `from` in text replaced by `to`, as Python's str.replace.
std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  size_t at = 0;
  for (size_t found; (found = text.find(from, at)) != std::string_view::npos; at = found + from.size()) {
    out.append(text.substr(at, found - at)).append(to);
  }
  return out.append(text.substr(at));
}

// A JSON string as Python's json.dumps writes it with ensure_ascii: printable ASCII as
// it is, the short escapes, and \uXXXX (lowercase, surrogate pairs) for the rest.
std::string python_json_string(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const auto [c, n] = code_point_at(text, i);
    i += n;
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c >= 0x20 && c <= 0x7E) {
      out += static_cast<char>(c);
    } else if (c < 0x10000) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
    } else {
      const auto v = static_cast<uint32_t>(c) - 0x10000;
      out += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
    }
  }
  return out + "\"";
}

constexpr std::string_view kAlpacaPreamble =
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.";

}  // namespace

PromptStyle parse_prompt_style(std::string_view name) {
  if (name == "alpaca") return PromptStyle::kAlpaca;
  if (name == "phi3") return PromptStyle::kPhi3;
  throw Error(fmt::format("prompt_style must be \"alpaca\" or \"phi3\", got \"{}\"", name));
}

std::string_view prompt_style_name(PromptStyle style) { return style == PromptStyle::kPhi3 ? "phi3" : "alpaca"; }

std::vector<InstructionEntry> parse_instruction_data(std::string_view text, std::string_view source,
                                                     const std::vector<std::string>& required,
                                                     std::vector<std::vector<std::string>>* values) {
  const auto json = parse_json(text, "instruction data", source);
  if (!json.is_array()) {
    throw Error(fmt::format("instruction data '{}': expected a JSON list of entries, got {}", source, json.type_name()));
  }
  std::vector<InstructionEntry> entries;
  entries.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const auto& item = json[i];
    const auto where = [&] { return fmt::format("instruction data '{}': entry {}", source, i); };
    if (!item.is_object()) throw Error(fmt::format("{}: expected an object, got {}", where(), item.type_name()));
    const auto field = [&](const std::string& key, bool needed) -> std::string {
      const auto it = item.find(key);
      if (it == item.end()) {
        if (needed) throw Error(fmt::format("{}: no \"{}\"", where(), key));
        return "";
      }
      if (!it->is_string()) throw Error(fmt::format("{}: \"{}\" must be a string, got {}", where(), key, it->type_name()));
      auto text = it->get<std::string>();
      if (text.find("<|endoftext|>") != std::string::npos) {  // tiktoken's encode() refuses it in the lesson
        throw Error(fmt::format("{}: \"{}\" holds <|endoftext|>, the token that ends every text; expected plain text",
                                where(), key));
      }
      return text;
    };
    entries.push_back({field("instruction", true), field("input", false), field("output", true),
                       item.contains("model_response") ? std::optional(field("model_response", true)) : std::nullopt});
    if (values == nullptr) continue;
    auto& own = values->emplace_back();
    for (const auto& key : required) own.push_back(field(key, true));
  }
  if (entries.empty()) throw Error(fmt::format("instruction data '{}': no entries", source));
  return entries;
}

std::vector<InstructionEntry> read_instruction_data(const std::filesystem::path& path) {
  return parse_instruction_data(read_file(path), path.string());
}

std::string format_input(const InstructionEntry& entry, PromptStyle style) {
  if (style == PromptStyle::kPhi3) {
    return "<|user|>\n" + entry.instruction + (entry.input.empty() ? "" : "\n" + entry.input);
  }
  return fmt::format("{}\n\n### Instruction:\n{}", kAlpacaPreamble, entry.instruction) +
         (entry.input.empty() ? "" : "\n\n### Input:\n" + entry.input);
}

std::string format_response(const InstructionEntry& entry, PromptStyle style) {
  return (style == PromptStyle::kPhi3 ? "\n<|assistant|>:\n" : "\n\n### Response:\n") + entry.output;
}

std::string score_prompt(const InstructionEntry& entry, PromptStyle style) {
  return fmt::format("Given the input `{}` and correct output `{}`, score the model response `{}` on a scale from 0 to "
                     "100, where 100 is the best score. Respond with the integer number only.",
                     format_input(entry, style), entry.output, entry.model_response.value_or(""));
}

std::string extract_response(std::string_view generated_text, std::string_view input_text, PromptStyle style) {
  const auto after = generated_text.substr(std::min(generated_text.size(),
                                                    utf8_offset(generated_text, utf8_length(input_text))));
  return std::string(python_strip(replace_all(after, style == PromptStyle::kPhi3 ? "<|assistant|>:" : "### Response:", "")));
}

InstructionSplits split_instruction_data(const std::vector<InstructionEntry>& entries, double train_frac,
                                         double test_frac) {
  const auto n = static_cast<double>(entries.size());
  const auto train = static_cast<size_t>(n * train_frac), test = static_cast<size_t>(n * test_frac);
  if (train + test > entries.size()) {
    throw Error(fmt::format("split: train {} and test {} leave no room in {} entries", train_frac, test_frac, n));
  }
  const auto at = [&](size_t i) { return entries.begin() + static_cast<std::ptrdiff_t>(i); };
  return {{entries.begin(), at(train)}, {at(train), at(train + test)}, {at(train + test), entries.end()}};
}

std::string instruction_data_json(const std::vector<InstructionEntry>& entries) {
  if (entries.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    out += fmt::format("    {{\n        \"instruction\": {},\n        \"input\": {},\n        \"output\": {},\n"
                       "        \"model_response\": {}\n    }}",
                       python_json_string(e.instruction), python_json_string(e.input), python_json_string(e.output),
                       python_json_string(e.model_response.value_or("")));
    out += i + 1 < entries.size() ? ",\n" : "\n";
  }
  return out + "]";
}

std::pair<torch::Tensor, torch::Tensor> custom_collate(const std::vector<std::vector<int64_t>>& batch,
                                                       const InstructionDataset::Options& options,
                                                       const std::vector<int64_t>& instruction_lengths) {
  size_t longest = 0;
  for (const auto& item : batch) longest = std::max(longest, item.size() + 1);  // + the <|endoftext|> token
  const auto length = static_cast<int64_t>(longest) - 1;
  const auto width = options.allowed_max_length > 0 ? std::min(length, options.allowed_max_length) : length;
  const auto rows = static_cast<int64_t>(batch.size());
  auto inputs = torch::empty({rows, width}, torch::kLong), targets = torch::empty({rows, width}, torch::kLong);
  auto in = inputs.accessor<int64_t, 2>(), out = targets.accessor<int64_t, 2>();
  for (int64_t r = 0; r < rows; ++r) {
    const auto& item = batch[static_cast<size_t>(r)];
    const auto padded = [&](int64_t i) {  // item + [pad] * (longest - len(item))
      return i < static_cast<int64_t>(item.size()) ? item[static_cast<size_t>(i)] : options.pad_token_id;
    };
    bool first_pad = true;
    for (int64_t i = 0; i < length; ++i) {
      int64_t target = padded(i + 1);
      if (target == options.pad_token_id) {  // every padding target but the first is ignored
        if (!first_pad) target = options.ignore_index;
        first_pad = false;
      }
      if (!instruction_lengths.empty() && i < instruction_lengths[static_cast<size_t>(r)] - 1) {
        target = options.ignore_index;  // exercise 7.2: the prompt's tokens are not predicted
      }
      if (i < width) {
        in[r][i] = padded(i);
        out[r][i] = target;
      }
    }
  }
  return {inputs, targets};
}

InstructionDataset::InstructionDataset(const std::vector<InstructionEntry>& entries, const BpeTokenizer& tokenizer,
                                       Options options)
    : options_(options) {
  encoded_texts_.reserve(entries.size());
  for (const auto& entry : entries) {
    const auto prompt = format_input(entry, options.style);
    encoded_texts_.push_back(tokenizer.encode(prompt + format_response(entry, options.style)));
    if (options.mask_instructions) instruction_lengths_.push_back(static_cast<int64_t>(tokenizer.encode(prompt).size()));
  }
}

std::pair<torch::Tensor, torch::Tensor> InstructionDataset::get_batch(const torch::Tensor& indices) const {
  const auto idx = indices.contiguous();
  std::vector<std::vector<int64_t>> batch;
  std::vector<int64_t> lengths;
  for (int64_t k = 0; k < idx.size(0); ++k) {
    const auto i = static_cast<size_t>(idx[k].item<int64_t>());
    batch.push_back(encoded_texts_.at(i));
    if (!instruction_lengths_.empty()) lengths.push_back(instruction_lengths_.at(i));
  }
  return custom_collate(batch, options_, lengths);
}

}  // namespace llm
