// What the checkpoint fuzz targets do with an archive's entries: the steps by which
// --checkpoint and --resume read a checkpoint, each of which must accept it or throw
// an llm::Error.
#pragma once

#include <torch/torch.h>

#include <string>

#include "llm/model/gpt_model.h"
#include "llm/train/checkpoint.h"

namespace llm::fuzz {

/// Whether a model of `config` is small enough to build for every input (the fuzzer
/// caps its memory; a checkpoint of a big model is read no differently).
inline bool small(const ModelShape& c) {
  const double d = static_cast<double>(c.emb_dim);
  const double parameters = static_cast<double>(c.vocab_size + c.context_length) * d * 2 + 13.0 * d * d * c.n_layers;
  return parameters < 1e6;
}

inline void load_as_checkpoint(const NamedTensors& checkpoint, const std::string& source) {
  check_checkpoint_format(checkpoint, source);
  const auto model_config = checkpoint_model_config(checkpoint, source);
  checkpoint_train_config(checkpoint, source);
  if (!small(model_config.shape())) return;
  auto model = model_config.make();
  torch::optim::AdamW optimizer(model->parameters());
  restore_checkpoint(checkpoint, source, *model, optimizer);
}

}  // namespace llm::fuzz
