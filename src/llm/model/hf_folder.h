#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "llm/io/tensor_archive.h"
#include "llm/model/language_model.h"
#include "llm/model/model_config.h"
#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// A Hugging Face config.json read as a family's config: its "architectures" names
/// the family, whose settings_from_hf reads the keys; whether the output head is the
/// token embeddings, and the BOS token when the file names one.
struct HfModelConfig {
  ModelConfig config;
  bool tie_word_embeddings = false;
  std::optional<int64_t> bos_id;
};

/// config.json's text; errors name `source`: not a JSON object, an architecture no
/// family reads, a setting the family's model does not have, a config that cannot be.
HfModelConfig parse_hf_config(std::string_view json, const std::string& source);

/// A model folder as the Hugging Face Hub holds it: config.json, whose
/// "architectures" (or "model_type") names the family; the weights in
/// model.safetensors, or in the shards model.safetensors.index.json names; and the
/// tokenizer (tokenizer.json, or GPT-2's vocab.json and merges.txt).
class HfModelFolder {
 public:
  /// Reads config.json (at most 1 MB) into the family's config. Errors name the file:
  /// an architecture no family reads, a setting the family's model does not have.
  explicit HfModelFolder(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  const ModelConfig& config() const { return config_.config; }
  /// config.json's bos_token_id, when it has one.
  std::optional<int64_t> bos_id() const { return config_.bos_id; }

  /// Every tensor of the folder by Hugging Face's names, from the one file or all the
  /// shards (each a plain file name inside the folder; every tensor the index lists in
  /// the shard it names, and no other). With tie_word_embeddings, lm_head.weight is
  /// left out, as transformers ties it; without, it must be there.
  NamedTensors weights() const;
  /// The model of config(), its weights loaded as the course's load_weights_into_*
  /// functions load them, converted to the config's dtype.
  LanguageModel load_model() const;
  /// The folder's tokenizer; an error when it has ordinary tokens beyond the model's
  /// vocab_size (added tokens may lie beyond it).
  BpeTokenizer tokenizer() const;

 private:
  std::filesystem::path dir_;
  HfModelConfig config_;
};

}  // namespace llm
