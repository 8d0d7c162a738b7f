#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/model/hf_config.h"
#include "llm/model/language_model.h"

namespace llm {

/// A model family: the name a config's "family" key gives, how the family checks its
/// settings, and how it builds its model from them.
struct ModelFamily {
  std::string_view name;
  /// The shape `settings` (the config's keys but "family") give; an llm::Error naming
  /// `source` and the first unknown key, wrong type or impossible value.
  ModelShape (*check)(const nlohmann::json& settings, std::string_view source);
  /// The family's model of checked settings, its weights drawn from the global
  /// generator as the lesson draws them.
  LanguageModel (*make)(const nlohmann::json& settings);
  /// Why a model of checked settings has no Hugging Face layout to be written in
  /// (hf_weights would refuse it); empty when it has one.
  std::string (*hf_layout_problem)(const nlohmann::json& settings);
  /// The architectures a Hugging Face config.json names for this family
  /// ("LlamaForCausalLM"), and the family's settings from such a file.
  const std::vector<std::string_view>& (*hf_architectures)();
  HfSettings (*settings_from_hf)(const HfConfig& hf);
};

/// The families a config may name, the default first: "gpt2", the course's GPT.
const std::vector<ModelFamily>& model_families();

/// The config `model` was built from, as ModelConfig::parse reads it back: its family's
/// settings, and the "family" key unless it is the default family (whose configs are the
/// lesson's GPT_CONFIG_124M, without the key).
nlohmann::json model_config_json(const LanguageModelImpl& model);

/// A model's settings as a config file or a checkpoint gives them: a JSON object whose
/// "family" key names the family (without it, the course's GPT, whose configs predate
/// the key) and whose other keys are that family's, checked when read.
class ModelConfig {
 public:
  /// `json`'s text; `source` names it in errors.
  static ModelConfig parse(std::string_view json, std::string_view source);
  static ModelConfig load(const std::filesystem::path& path);
  /// A config already read as JSON: an object whose "family" key names the family.
  static ModelConfig from_json(nlohmann::json config, std::string_view source);

  std::string_view family() const { return family_->name; }
  /// The family's keys, without "family".
  const nlohmann::json& settings() const { return settings_; }
  const ModelShape& shape() const { return shape_; }
  /// The model, its weights drawn from the global generator.
  LanguageModel make() const { return family_->make(settings_); }
  /// Why the model has no Hugging Face layout (ModelFamily::hf_layout_problem); empty
  /// when it has one. Asked before a run whose end writes it.
  std::string hf_layout_problem() const { return family_->hf_layout_problem(settings_); }

 private:
  const ModelFamily* family_ = nullptr;
  nlohmann::json settings_;
  ModelShape shape_;
};

}  // namespace llm
