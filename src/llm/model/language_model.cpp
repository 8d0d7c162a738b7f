#include "llm/model/language_model.h"

#include <fmt/format.h>

#include "llm/io/safetensors.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

bool is_tied(const torch::Tensor& head_weight, const torch::Tensor& embedding_weight) {
  return head_weight.sizes() == embedding_weight.sizes() && torch::equal(head_weight, embedding_weight);
}

void check_token_ids(const torch::Tensor& ids, const ModelShape& shape, std::string_view model) {
  if (ids.dim() != 2 || ids.scalar_type() != torch::kLong) {
    throw Error(fmt::format("{}: token ids must be a 2-D int64 tensor [batch, tokens], got {}-D {}", model, ids.dim(),
                            c10::toString(ids.scalar_type())));
  }
  if (ids.size(1) == 0 || ids.size(1) > shape.context_length) {
    throw Error(fmt::format("{}: {} tokens; expected 1..{} (context_length)", model, ids.size(1), shape.context_length));
  }
  if (ids.numel() > 0 && (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() >= shape.vocab_size)) {
    throw Error(fmt::format("{}: token ids must be in 0..{}", model, shape.vocab_size - 1));
  }
}

void check_cache_room(const KVCache& cache, int64_t tokens, const ModelShape& shape, std::string_view model) {
  const int64_t past = cache.length();
  if (static_cast<int64_t>(cache.layers.size()) != shape.n_layers || past + tokens > shape.context_length) {
    throw Error(fmt::format("{}: a cache of {} layers and {} tokens cannot take {} more (n_layers {}, "
                            "context_length {})",
                            model, cache.layers.size(), past, tokens, shape.n_layers, shape.context_length));
  }
}

void save_hugging_face(const std::filesystem::path& path, const LanguageModelImpl& model) {
  const auto tensors = model.hf_weights();
  const auto config = model.hf_config().dump(2) + "\n";
  save_safetensors(path, tensors, {{"format", "pt"}});
  write_file_atomic(path.parent_path() / "config.json", config);
}

}  // namespace llm
