#pragma once

#include <string>

#include "llm/io/tensor_archive.h"
#include "llm/model/gpt_model.h"

namespace llm {

/// Loads the weights of a file read by load_tensors into `model`, strictly: every
/// parameter must be there, with its shape. The file may hold
///  - a state dict in the lesson's names, as torch.save(model.state_dict()) writes it;
///  - lesson 5.4's {"model_state_dict": ..., "optimizer_state_dict": ...}, whose model
///    part is taken;
///  - either without the causal masks (trf_blocks.N.att.mask): newer lesson code does
///    not save these buffers, and the model's own, which depend only on the config,
///    are kept.
/// `source` names the file in errors.
void load_gpt_weights(GPTModel& model, const NamedTensors& file, const std::string& source);

}  // namespace llm
