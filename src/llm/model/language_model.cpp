#include "llm/model/language_model.h"

#include "llm/io/safetensors.h"
#include "llm/util/files.h"

namespace llm {

void save_hugging_face(const std::filesystem::path& path, const LanguageModelImpl& model) {
  const auto tensors = model.hf_weights();
  const auto config = model.hf_config().dump(2) + "\n";
  save_safetensors(path, tensors, {{"format", "pt"}});
  write_file_atomic(path.parent_path() / "config.json", config);
}

}  // namespace llm
