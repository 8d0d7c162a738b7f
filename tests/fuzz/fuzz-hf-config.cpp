// Hugging Face's config.json reader (--model-dir) on any text: it gives a family's
// config or refuses with an llm::Error; what it accepts is a config the family itself
// accepts again, with the same shape.
#include "fuzz.h"
#include "llm/model/hf_folder.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using llm::fuzz::require;
  const std::string text = llm::fuzz::bytes(data, size);
  std::optional<llm::HfModelConfig> read;
  try {
    read.emplace(llm::parse_hf_config(text, "fuzz"));
  } catch (const llm::Error&) {
    return 0;
  }
  auto json = read->config.settings();
  json["family"] = read->config.family();
  try {
    const auto again = llm::ModelConfig::from_json(json, "again");
    require(again.shape().vocab_size == read->config.shape().vocab_size &&
                again.shape().n_layers == read->config.shape().n_layers,
            "the config reads back with another shape");
  } catch (const llm::Error& e) {
    require(false, std::string("accepted, then refused by its family: ") + e.what());
  }
  return 0;
}
