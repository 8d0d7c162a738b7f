#include "llm/model/model_config.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/model/gemma3_model.h"
#include "llm/model/gpt_model.h"
#include "llm/model/llama3_model.h"
#include "llm/model/qwen3_model.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

namespace llm {
namespace {

constexpr std::string_view kFamilyKey = "family";

// One entry per family, from its Impl's kFamily, check_config, config_from_json,
// hf_layout_problem, hf_architectures and settings_from_hf.
template <typename Impl>
ModelFamily family_entry() {
  return {Impl::kFamily, &Impl::check_config,
          [](const nlohmann::json& settings) -> LanguageModel {
            std::shared_ptr<LanguageModelImpl> model = std::make_shared<Impl>(Impl::config_from_json(settings, "config"));
            return model;
          },
          [](const nlohmann::json& settings) { return Impl::hf_layout_problem(Impl::config_from_json(settings, "config")); },
          &Impl::hf_architectures, &Impl::settings_from_hf};
}

std::string family_choices() {
  std::string choices;
  for (const auto& family : model_families()) choices += fmt::format("{}\"{}\"", choices.empty() ? "" : ", ", family.name);
  return choices;
}

}  // namespace

const std::vector<ModelFamily>& model_families() {
  static const std::vector<ModelFamily> kFamilies = {family_entry<GPTModelImpl>(), family_entry<Llama3ModelImpl>(),
                                                     family_entry<Qwen3ModelImpl>(), family_entry<Gemma3ModelImpl>()};
  return kFamilies;
}

nlohmann::json model_config_json(const LanguageModelImpl& model) {
  auto json = model.config_json();
  if (model.family() != model_families().front().name) json[kFamilyKey] = model.family();
  return json;
}

ModelConfig ModelConfig::parse(std::string_view json, std::string_view source) {
  return from_json(parse_json_object(json, "config", source), source);
}

ModelConfig ModelConfig::from_json(nlohmann::json json, std::string_view source) {
  ModelConfig config;
  config.settings_ = std::move(json);
  config.family_ = &model_families().front();
  if (const auto key = config.settings_.find(kFamilyKey); key != config.settings_.end()) {
    const auto* name = key->get_ptr<const std::string*>();
    const auto& families = model_families();
    const auto known = std::find_if(families.begin(), families.end(),
                                    [&](const ModelFamily& family) { return name && family.name == *name; });
    if (known == families.end()) {
      throw Error(fmt::format("config '{}': {} must be one of {}", source, kFamilyKey, family_choices()));
    }
    config.family_ = &*known;
    config.settings_.erase(key);
  }
  config.shape_ = config.family_->check(config.settings_, source);
  return config;
}

ModelConfig ModelConfig::load(const std::filesystem::path& path) { return parse(read_file(path), path.string()); }

}  // namespace llm
