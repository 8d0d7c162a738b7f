#include "llm/text/tokenizer_json.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

namespace llm {
namespace {

constexpr size_t kMaxTokenizerJsonBytes = size_t{1} << 30;
constexpr int64_t kMaxTokenId = std::numeric_limits<int32_t>::max() - 1;

using Json = nlohmann::json;

std::string shown(std::string_view text) {
  return Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Reads the parts of tokenizer.json that a BPE tokenizer needs, refusing what it
// cannot honour. Nested Sequences are refused, so no part is read recursively.
class TokenizerJsonReader {
 public:
  TokenizerJsonReader(std::string_view text, std::string_view name) : name_(name) {
    json_ = parse_json_object(text, "tokenizer.json", name);
  }

  BpeTokenizer read() {
    const Json& model = object_at(json_, "model");
    if (string_at(model, "type", "model") != "BPE") {
      throw error(fmt::format("model type {} is not supported (expected \"BPE\")", shown(string_at(model, "type", "model"))));
    }
    read_pre_tokenizer(optional_at(json_, "pre_tokenizer"));
    read_normalizer(optional_at(json_, "normalizer"));
    read_model_options(model);
    read_vocab(object_at(model, "vocab"));
    read_added_tokens(optional_at(json_, "added_tokens"));
    read_decoder(optional_at(json_, "decoder"));
    assemble_tokens();
    read_merges(model.contains("merges") ? model["merges"] : Json::array());
    try {
      return BpeTokenizer(std::move(vocabulary_), std::move(rules_));
    } catch (const Error& e) {
      throw error(e.what());
    }
  }

 private:
  Error error(const std::string& what) const { return Error(fmt::format("tokenizer.json '{}': {}", name_, what)); }

  const Json& optional_at(const Json& object, const char* key) const {
    static const Json null;
    return object.contains(key) ? object[key] : null;
  }
  const Json& object_at(const Json& object, const char* key) const {
    if (!object.contains(key) || !object[key].is_object()) throw error(fmt::format("expected an object \"{}\"", key));
    return object[key];
  }
  std::string string_at(const Json& object, const char* key, std::string_view where) const {
    if (!object.is_object() || !object.contains(key) || !object[key].is_string()) {
      throw error(fmt::format("{}: expected a string \"{}\"", where, key));
    }
    return object[key].get<std::string>();
  }
  bool flag_at(const Json& object, const char* key, std::string_view where) const {
    if (!object.contains(key) || object[key].is_null()) return false;
    if (!object[key].is_boolean()) throw error(fmt::format("{}: \"{}\" must be true or false", where, key));
    return object[key].get<bool>();
  }
  // The steps of a Sequence (in `list_key`), or the one step itself.
  std::vector<const Json*> steps_of(const Json& part, const char* list_key, std::string_view where) const {
    if (!part.is_object()) throw error(fmt::format("{}: expected an object or null", where));
    if (string_at(part, "type", where) != "Sequence") return {&part};
    if (!part.contains(list_key) || !part[list_key].is_array()) {
      throw error(fmt::format("{}: a Sequence needs a list \"{}\"", where, list_key));
    }
    std::vector<const Json*> steps;
    for (const auto& step : part[list_key]) {
      if (!step.is_object() || string_at(step, "type", where) == "Sequence") {
        throw error(fmt::format("{}: a Sequence holds objects that are not Sequences", where));
      }
      steps.push_back(&step);
    }
    return steps;
  }

  std::string literal_pattern(const Json& step, std::string_view where) const {
    const Json& pattern = optional_at(step, "pattern");
    if (!pattern.is_object() || !pattern.contains("String")) {
      throw error(fmt::format("{}: expected a pattern {{\"String\": ...}}", where));
    }
    const std::string text = string_at(pattern, "String", where);
    if (text.empty()) throw error(fmt::format("{}: the pattern's string is empty", where));
    return text;
  }

  void read_pre_tokenizer(const Json& part);
  void read_split(const Json& step);
  void read_normalizer(const Json& part);
  void read_model_options(const Json& model);
  void read_vocab(const Json& vocab);
  void read_added_tokens(const Json& list);
  void read_decoder(const Json& part);
  void assemble_tokens();
  std::string token_bytes_of(const std::string& spelling) const;
  int64_t merge_side(const Json& side, size_t line) const;
  void read_merges(const Json& merges);

  std::string name_;
  Json json_;
  BpeVocabulary vocabulary_;
  BpeRules rules_;
  bool byte_level_ = false;
  bool decoder_byte_fallback_ = false;
  std::vector<std::pair<std::string, std::string>> decoder_replacements_;
  std::optional<std::string> unknown_name_;
  std::unordered_map<std::string, int64_t> vocab_ids_;
  std::map<int64_t, std::string> vocab_spellings_;
  std::map<int64_t, std::string> added_contents_;
};

void TokenizerJsonReader::read_pre_tokenizer(const Json& part) {
  rules_.pre_tokenizer.clear();
  if (part.is_null()) return;
  for (const Json* step : steps_of(part, "pretokenizers", "pre_tokenizer")) {
    const std::string type = string_at(*step, "type", "pre_tokenizer");
    if (type == "Split") {
      read_split(*step);
    } else if (type == "ByteLevel") {
      if (flag_at(*step, "add_prefix_space", "pre_tokenizer ByteLevel")) {
        throw error("pre_tokenizer ByteLevel: add_prefix_space is not supported");
      }
      byte_level_ = true;
      if (flag_at(*step, "use_regex", "pre_tokenizer ByteLevel")) rules_.pre_tokenizer.push_back(gpt2_pre_tokenizer());
    } else {
      throw error(fmt::format("pre_tokenizer type {} is not supported (expected Split, ByteLevel or a Sequence of them)",
                              shown(type)));
    }
  }
}

void TokenizerJsonReader::read_split(const Json& step) {
  static const std::map<std::string, SplitBehavior> behaviors{
      {"Isolated", SplitBehavior::kIsolated},
      {"Removed", SplitBehavior::kRemoved},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext}};
  const std::string behavior_name = string_at(step, "behavior", "pre_tokenizer Split");
  const auto behavior = behaviors.find(behavior_name);
  if (behavior == behaviors.end()) {
    throw error(fmt::format("pre_tokenizer Split: behavior {} is not supported", shown(behavior_name)));
  }
  if (flag_at(step, "invert", "pre_tokenizer Split")) throw error("pre_tokenizer Split: invert is not supported");
  const Json& pattern = optional_at(step, "pattern");
  if (pattern.is_object() && pattern.contains("Regex")) {
    const std::string regex = string_at(pattern, "Regex", "pre_tokenizer Split");
    try {
      rules_.pre_tokenizer.push_back(PieceSplit::regex(pcre2_pattern_from_hf(regex), behavior->second));
    } catch (const Error& e) {
      throw error(fmt::format("pre_tokenizer Split: {}", e.what()));
    }
  } else {
    rules_.pre_tokenizer.push_back(
        PieceSplit::literal(literal_pattern(step, "pre_tokenizer Split"), behavior->second));
  }
}

void TokenizerJsonReader::read_normalizer(const Json& part) {
  if (part.is_null()) return;
  for (const Json* step : steps_of(part, "normalizers", "normalizer")) {
    const std::string type = string_at(*step, "type", "normalizer");
    if (type == "NFC") {
      rules_.normalizer.push_back({Normalization::Kind::kNfc, "", ""});
    } else if (type == "Replace") {
      rules_.normalizer.push_back({Normalization::Kind::kReplace, literal_pattern(*step, "normalizer Replace"),
                                   string_at(*step, "content", "normalizer Replace")});
    } else {
      throw error(fmt::format("normalizer type {} is not supported (expected NFC, Replace or a Sequence of them)",
                              shown(type)));
    }
  }
}

void TokenizerJsonReader::read_model_options(const Json& model) {
  if (!optional_at(model, "dropout").is_null()) throw error("model: BPE dropout is not supported");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const Json& value = optional_at(model, key);
    if (!value.is_null() && !(value.is_string() && value.get<std::string>().empty())) {
      throw error(fmt::format("model: \"{}\" is not supported", key));
    }
  }
  rules_.merging = BpeRules::Merging::kListedPairs;
  rules_.alphabet = byte_level_ ? BpeRules::Alphabet::kBytes : BpeRules::Alphabet::kCharacters;
  rules_.byte_fallback = flag_at(model, "byte_fallback", "model");
  if (rules_.byte_fallback && byte_level_) throw error("model: byte_fallback with a ByteLevel pre-tokenizer");
  rules_.whole_piece_tokens = flag_at(model, "ignore_merges", "model");
  if (!optional_at(model, "unk_token").is_null()) unknown_name_ = string_at(model, "unk_token", "model");
}

void TokenizerJsonReader::read_vocab(const Json& vocab) {
  vocab_ids_.reserve(vocab.size());
  for (const auto& [spelling, value] : vocab.items()) {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > kMaxTokenId) {
      throw error(fmt::format("model.vocab: token {}: expected an id from 0 to {}", shown(spelling), kMaxTokenId));
    }
    const int64_t id = value.get<int64_t>();
    if (!vocab_spellings_.emplace(id, spelling).second) {
      throw error(fmt::format("model.vocab: id {} is given to {} and {}", id, shown(vocab_spellings_[id]), shown(spelling)));
    }
    vocab_ids_.emplace(spelling, id);
  }
  if (vocab_spellings_.empty()) throw error("model.vocab is empty");
}

void TokenizerJsonReader::read_added_tokens(const Json& list) {
  if (list.is_null()) return;
  if (!list.is_array()) throw error("\"added_tokens\" must be a list");
  for (const auto& token : list) {
    const std::string content = string_at(token, "content", "added_tokens");
    const Json& id = optional_at(token, "id");
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxTokenId) {
      throw error(fmt::format("added token {}: expected an id from 0 to {}", shown(content), kMaxTokenId));
    }
    if (content.empty()) throw error(fmt::format("added token {}: the content is empty", id.get<int64_t>()));
    for (const char* key : {"lstrip", "rstrip", "single_word"}) {
      if (flag_at(token, key, "added_tokens")) {
        throw error(fmt::format("added token {}: {} is not supported", shown(content), key));
      }
    }
    if (flag_at(token, "normalized", "added_tokens") && !rules_.normalizer.empty()) {
      throw error(fmt::format("added token {}: matching normalized text is not supported", shown(content)));
    }
    if (!added_contents_.emplace(id.get<int64_t>(), content).second) {
      throw error(fmt::format("added_tokens: id {} is given twice", id.get<int64_t>()));
    }
    rules_.added.push_back({id.get<int64_t>(), content});
  }
}

void TokenizerJsonReader::read_decoder(const Json& part) {
  if (part.is_null()) {
    if (byte_level_) throw error("a ByteLevel pre-tokenizer needs a ByteLevel decoder");
    return;
  }
  for (const Json* step : steps_of(part, "decoders", "decoder")) {
    const std::string type = string_at(*step, "type", "decoder");
    if (type == "ByteLevel" && byte_level_) continue;
    if (type == "Replace" && !byte_level_) {
      decoder_replacements_.emplace_back(literal_pattern(*step, "decoder Replace"),
                                         string_at(*step, "content", "decoder Replace"));
    } else if (type == "ByteFallback" && !byte_level_) {
      decoder_byte_fallback_ = true;
    } else if (type != "Fuse") {
      throw error(fmt::format("decoder type {} is not supported with this pre-tokenizer", shown(type)));
    }
  }
}

// What decode() writes for a token of the vocabulary.
std::string TokenizerJsonReader::token_bytes_of(const std::string& spelling) const {
  if (byte_level_) {
    // An added token with characters outside the byte alphabet stands for itself.
    auto bytes = bytes_from_printable(spelling);
    if (!bytes && vocab_ids_.count(spelling) != 0) {
      throw error(fmt::format("model.vocab: token {} has a character outside the byte alphabet", shown(spelling)));
    }
    return bytes ? *bytes : spelling;
  }
  if (decoder_byte_fallback_ && spelling.size() == 6 && spelling.rfind("<0x", 0) == 0 && spelling[5] == '>') {
    const auto hex = spelling.substr(3, 2);
    if (hex.find_first_not_of("0123456789ABCDEF") == std::string::npos) {
      return std::string(1, static_cast<char>(std::stoi(hex, nullptr, 16)));
    }
  }
  std::string bytes = spelling;
  for (const auto& [from, to] : decoder_replacements_) {
    bytes = normalize(bytes, {{Normalization::Kind::kReplace, from, to}});
  }
  return bytes;
}

void TokenizerJsonReader::assemble_tokens() {
  const int64_t last = std::max(vocab_spellings_.rbegin()->first,
                                added_contents_.empty() ? int64_t{0} : added_contents_.rbegin()->first);
  size_t distinct = vocab_spellings_.size();
  for (const auto& [id, content] : added_contents_) distinct += vocab_spellings_.count(id) == 0 ? 1 : 0;
  if (static_cast<size_t>(last) + 1 != distinct) {  // checked before the tokens take room for `last` of them
    int64_t hole = 0;
    while (vocab_spellings_.count(hole) != 0 || added_contents_.count(hole) != 0) ++hole;
    throw error(fmt::format("token ids must be dense: id {} has no token", hole));
  }
  vocabulary_.tokens.resize(static_cast<size_t>(last + 1));
  if (!byte_level_) rules_.spellings.resize(vocabulary_.tokens.size());
  for (int64_t id = 0; id <= last; ++id) {
    const auto spelling = vocab_spellings_.find(id);
    const auto added = added_contents_.find(id);
    if (spelling != vocab_spellings_.end() && added != added_contents_.end() && spelling->second != added->second) {
      throw error(fmt::format("id {} is {} in model.vocab but {} in added_tokens", id, shown(spelling->second),
                              shown(added->second)));
    }
    // Added tokens are decoded as the others are (Gemma's "▁▁" is two spaces).
    vocabulary_.tokens[id] = token_bytes_of(added != added_contents_.end() ? added->second : spelling->second);
    if (!byte_level_) rules_.spellings[id] = added != added_contents_.end() ? added->second : spelling->second;
  }
  if (unknown_name_) {
    const auto it = vocab_ids_.find(*unknown_name_);
    if (it == vocab_ids_.end()) throw error(fmt::format("model: unk_token {} is not in the vocabulary", shown(*unknown_name_)));
    rules_.unknown = it->second;
  }
}

int64_t TokenizerJsonReader::merge_side(const Json& side, size_t line) const {
  const auto it = side.is_string() ? vocab_ids_.find(side.get<std::string>()) : vocab_ids_.end();
  if (it == vocab_ids_.end()) {
    throw error(fmt::format("model.merges[{}]: {} is not a token of model.vocab", line,
                            side.is_string() ? shown(side.get<std::string>()) : std::string("a non-string")));
  }
  return it->second;
}

void TokenizerJsonReader::read_merges(const Json& merges) {
  if (!merges.is_array()) throw error("model.merges must be a list");
  vocabulary_.merges.reserve(merges.size());
  for (size_t line = 0; line < merges.size(); ++line) {
    const Json& merge = merges[line];
    if (merge.is_array() && merge.size() == 2) {
      vocabulary_.merges.emplace_back(merge_side(merge[0], line), merge_side(merge[1], line));
      continue;
    }
    const std::string text = merge.is_string() ? merge.get<std::string>() : std::string();
    const size_t space = text.find(' ');
    if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos) {
      throw error(fmt::format("model.merges[{}]: expected \"LEFT RIGHT\" or [LEFT, RIGHT]", line));
    }
    vocabulary_.merges.emplace_back(merge_side(Json(text.substr(0, space)), line),
                                    merge_side(Json(text.substr(space + 1)), line));
  }
}

}  // namespace

BpeTokenizer parse_tokenizer_json(std::string_view json, std::string_view name) {
  TokenizerJsonReader reader(json, name);
  try {
    return reader.read();
  } catch (const Json::exception& e) {
    throw Error(fmt::format("tokenizer.json '{}': {}", name, e.what()));
  }
}

BpeTokenizer load_tokenizer_json(const std::filesystem::path& path) {
  std::string text = read_file_start(path, kMaxTokenizerJsonBytes + 1);
  if (text.size() > kMaxTokenizerJsonBytes) {
    throw Error(fmt::format("tokenizer.json '{}': larger than {} bytes", path.string(), kMaxTokenizerJsonBytes));
  }
  return parse_tokenizer_json(text, path.string());
}

const std::vector<std::string_view>& tokenizer_names() {
  static const std::vector<std::string_view> names{"gpt2", "llama3", "qwen3", "gemma3"};
  return names;
}

BpeTokenizer tokenizer_named(std::string_view name_or_path) {
  if (name_or_path == "gpt2") return BpeTokenizer::gpt2();
  for (const auto name : tokenizer_names()) {
    if (name == name_or_path) return load_tokenizer_json(existing_data_file(fmt::format("tokenizers/{}/tokenizer.json", name)));
  }
  return load_tokenizer_json(std::filesystem::path(std::string(name_or_path)));
}

}  // namespace llm
