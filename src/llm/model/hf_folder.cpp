#include "llm/model/hf_folder.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "llm/io/safetensors.h"
#include "llm/text/tokenizer_json.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

namespace fs = std::filesystem;

namespace llm {
namespace {

constexpr size_t kMaxConfigBytes = size_t{1} << 20;
constexpr size_t kMaxIndexBytes = size_t{100} << 20;

// A small JSON file of the folder, read whole but never more than `limit` bytes.
std::string read_json_text(const fs::path& path, size_t limit, std::string_view what) {
  auto text = read_file_start(path, limit + 1);
  if (text.size() > limit) {
    throw Error(fmt::format("{} '{}': larger than {} bytes; expected a small JSON file", what, path.string(), limit));
  }
  return text;
}

std::string known_architectures() {
  std::string names;
  for (const auto& family : model_families()) {
    for (const auto name : family.hf_architectures()) names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  }
  return names;
}

// The family whose architecture config.json names first.
const ModelFamily& family_of(const nlohmann::json& config, const std::string& source) {
  const auto architectures = config.find("architectures");
  if (architectures != config.end() && architectures->is_array()) {
    for (const auto& name : *architectures) {
      if (!name.is_string()) continue;
      for (const auto& family : model_families()) {
        const auto& names = family.hf_architectures();
        if (std::find(names.begin(), names.end(), name.get<std::string>()) != names.end()) return family;
      }
    }
  }
  throw Error(fmt::format("config.json '{}': architectures names no model this project has; expected one of {}", source,
                          known_architectures()));
}

// A shard's name from the index: a plain file name inside the folder.
fs::path shard_path(const fs::path& dir, const nlohmann::json& name, const std::string& index) {
  const auto* file = name.get_ptr<const std::string*>();
  if (file == nullptr || file->empty() || file->find('/') != std::string::npos || *file == "." || *file == ".." ||
      file->find('\0') != std::string::npos) {
    throw Error(fmt::format("index '{}': each weight_map entry must name a file in the folder", index));
  }
  return dir / *file;
}

// The tensors of the shards model.safetensors.index.json names, each where it says.
NamedTensors sharded_weights(const fs::path& dir) {
  const auto index_path = dir / "model.safetensors.index.json";
  const auto index = index_path.string();
  const auto json = parse_json_object(read_json_text(index_path, kMaxIndexBytes, "index"), "index", index);
  const auto map = json.find("weight_map");
  if (map == json.end() || !map->is_object() || map->empty()) {
    throw Error(fmt::format("index '{}': expected a non-empty weight_map object", index));
  }
  std::map<fs::path, std::set<std::string>> shards;  // file -> the tensors it must hold
  for (const auto& [name, file] : map->items()) shards[shard_path(dir, file, index)].insert(name);
  NamedTensors tensors;
  for (const auto& [path, names] : shards) {
    std::set<std::string> found;
    for (auto& [name, tensor] : load_safetensors(path)) {
      if (names.count(name) == 0) {
        throw Error(fmt::format("shard '{}': holds '{}', which the index '{}' places elsewhere or not at all",
                                path.string(), name, index));
      }
      found.insert(name);
      tensors.emplace_back(name, std::move(tensor));
    }
    for (const auto& name : names) {
      if (found.count(name) == 0) {
        throw Error(fmt::format("shard '{}': lacks '{}', which the index '{}' places there", path.string(), name, index));
      }
    }
  }
  return tensors;
}

}  // namespace

HfModelConfig parse_hf_config(std::string_view text, const std::string& source) {
  const auto json = parse_json_object(text, "config.json", source);
  const auto& family = family_of(json, source);
  const HfConfig hf(json, source);
  auto [settings, tied] = family.settings_from_hf(hf);
  settings["family"] = family.name;
  HfModelConfig config{ModelConfig::from_json(std::move(settings), source), tied, std::nullopt};
  if (hf.has("bos_token_id")) config.bos_id = hf.integer("bos_token_id");
  return config;
}

HfModelFolder::HfModelFolder(fs::path dir)
    : dir_(std::move(dir)),
      config_(parse_hf_config(read_json_text(dir_ / "config.json", kMaxConfigBytes, "config.json"),
                              (dir_ / "config.json").string())) {}

NamedTensors HfModelFolder::weights() const {
  const auto single = dir_ / "model.safetensors";
  std::error_code error;
  auto tensors = fs::exists(single, error) || !fs::exists(dir_ / "model.safetensors.index.json", error)
                     ? load_safetensors(single)
                     : sharded_weights(dir_);
  constexpr std::string_view kHead = "lm_head.weight";
  if (config_.tie_word_embeddings) {  // transformers ties it to the embeddings, whatever the file holds
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(), [&](const auto& t) { return t.first == kHead; }),
                  tensors.end());
  } else if (!has_tensor(tensors, kHead)) {
    throw Error(fmt::format("folder '{}': config.json has tie_word_embeddings false, but the weights lack {}",
                            dir_.string(), kHead));
  }
  return tensors;
}

LanguageModel HfModelFolder::load_model() const {
  auto tensors = weights();  // before the model is drawn: a missing file is found at once
  auto model = config_.config.make();
  model->load_weights(std::move(tensors), dir_.string());  // each tensor's pages go once it is loaded
  return model;
}

namespace {

BpeTokenizer folder_tokenizer(const fs::path& dir) {
  std::error_code error;
  if (const auto json = dir / "tokenizer.json"; fs::exists(json, error)) return load_tokenizer_json(json);
  const auto vocab = dir / "vocab.json", merges = dir / "merges.txt";
  if (fs::exists(vocab, error) && fs::exists(merges, error)) return BpeTokenizer::from_files(vocab, merges);
  throw Error(fmt::format("folder '{}': no tokenizer; expected tokenizer.json (or GPT-2's vocab.json and merges.txt)",
                          dir.string()));
}

}  // namespace

BpeTokenizer HfModelFolder::tokenizer() const {
  auto tokenizer = folder_tokenizer(dir_);
  // Added tokens may lie beyond the model's rows (Gemma 3's <image_soft_token> is for its
  // vision tower); ordinary ones may not.
  const int64_t rows = config_.config.shape().vocab_size;
  for (int64_t id = rows; id < tokenizer.vocab_size(); ++id) {
    if (tokenizer.special_token(tokenizer.token_bytes(id)) != id) {
      throw Error(fmt::format("folder '{}': the tokenizer has {} tokens, more than config.json's vocab_size {}",
                              dir_.string(), tokenizer.vocab_size(), rows));
    }
  }
  return tokenizer;
}

}  // namespace llm
