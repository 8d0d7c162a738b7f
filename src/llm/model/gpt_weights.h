#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "llm/io/tensor_archive.h"
#include "llm/model/gpt_model.h"

namespace llm {

/// Loads the weights of a file read by load_tensors (torch.save or safetensors) into
/// `model`, strictly: every parameter must be there, with its shape, and nothing else.
/// The file may hold
///  - a state dict in the lesson's names, as torch.save(model.state_dict()) writes it
///    (the lesson's converted gpt2-small-124M.pth ... included);
///  - lesson 5.4's {"model_state_dict": ..., "optimizer_state_dict": ...}, whose model
///    part is taken;
///  - either without the causal masks (trf_blocks.N.att.mask): newer lesson code does
///    not save these buffers, and the model's own, which depend only on the config,
///    are kept;
///  - GPT-2 in Hugging Face's layout (wte, wpe, h.N.*, ln_f, with or without a
///    "transformer." prefix; see from_hf_gpt2).
/// Any floating-point dtype is converted to the model's. `source` names the file in
/// errors, which also name the key and the model's config.
void load_gpt_weights(GPTModelImpl& model, NamedTensors file, const std::string& source);

/// Hugging Face's GPT-2 tensors in the lesson's names, for `config`: Conv1D weights,
/// stored [in, out], transposed into Linear's [out, in]; c_attn's query|key|value
/// split into W_query, W_key and W_value; out_head tied to wte unless lm_head.weight
/// is given; the attn.bias / attn.masked_bias buffers ignored. A missing or unexpected
/// key, or a shape that does not fit the config, is an llm::Error naming `source`,
/// the key and the config.
NamedTensors from_hf_gpt2(const NamedTensors& file, const GPTConfig& config, const std::string& source);

/// The model's weights in Hugging Face's GPT-2 layout (no prefix), as transformers'
/// GPT2LMHeadModel loads them: lm_head.weight only when out_head is not wte; zero
/// c_attn biases when the config has no qkv_bias. Grouped-query attention has no such
/// layout (an llm::Error with hf_gpt2_layout_problem's message).
NamedTensors to_hf_gpt2(const GPTModelImpl& model);

/// Why a GPT of `config` has no Hugging Face GPT-2 layout; empty when it has one.
std::string hf_gpt2_layout_problem(const GPTConfig& config);

/// transformers' config.json for that file (GPT2Config).
nlohmann::json hf_gpt2_config(const GPTModelImpl& model);

}  // namespace llm
