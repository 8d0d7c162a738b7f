#pragma once

#include <cxxopts.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "llm/model/generate.h"
#include "llm/model/gpt_model.h"
#include "llm/model/language_model.h"
#include "llm/model/model_config.h"

namespace llm {

/// The GPT-2 weights scripts/download-gpt2.sh put in models/ for `size` ("124M",
/// "355M", "774M" or "1558M"): model.safetensors in Hugging Face's layout, else the
/// lesson's converted .pth; nullopt when neither is there.
std::optional<std::filesystem::path> downloaded_gpt2(std::string_view size);

/// --config FILE (a JSON model config; default GPT-2 small).
void add_config_flag(cxxopts::Options& options, const std::string& default_config = "gpt2-small.json");

/// --config, plus --load-state-dict FILE, --save-state-dict FILE and --save-safetensors FILE.
void add_model_flags(cxxopts::Options& options, const std::string& default_config = "gpt2-small.json");

/// --config as the lesson's GPT config (the chapter-4 steps build its parts): read as
/// model_config_from_flags reads it, and an llm::Error unless its family is "gpt2".
GPTConfig config_from_flags(const cxxopts::ParseResult& args);

/// --config as a model config of any family.
ModelConfig model_config_from_flags(const cxxopts::ParseResult& args);

/// Throws llm::Error, naming the config file (or the checkpoint) the model's config
/// came from, when its context_length is shorter than a lesson's fixed input of
/// `tokens` tokens, described by `input`.
void require_context_length(const cxxopts::ParseResult& args, int64_t context_length, int64_t tokens,
                            std::string_view input);

/// The model of --config (any family), drawn after --seed, with the weights of
/// --load-state-dict when given (any file its family's load_weights takes), on --device.
LanguageModel model_from_flags(const cxxopts::ParseResult& args);

/// The same for the lesson steps that take the GPT apart (4.6, 4.7, 6.3): the GPT of
/// --config.
GPTModel gpt_model_from_flags(const cxxopts::ParseResult& args);

/// Writes the model's state dict to --save-state-dict, when given: a file that
/// PyTorch's load_state_dict(torch.load(FILE)) accepts with strict=True; and its
/// weights in Hugging Face's layout to --save-safetensors (save_hugging_face).
void save_weights_flags(const cxxopts::ParseResult& args, const LanguageModelImpl& model);

/// --weights-dtype float32|bfloat16|int8: how the model's Linear layers keep their
/// weights for decoding (LinearImpl::convert_weight); add_sampling_flags adds it.
void add_weights_dtype_flag(cxxopts::Options& options);

/// --weights-dtype's value; a cli::BadFlagValue for a value not of the three, or for
/// bfloat16 or int8 beside --save-state-dict or --save-safetensors (which would save
/// the converted weights). Checked before the model loads.
WeightsDtype weights_dtype_from_flags(const cxxopts::ParseResult& args);

/// --prompt, --max-new-tokens, --temperature, --top-k and --eos-id, with these
/// defaults, and --weights-dtype.
void add_sampling_flags(cxxopts::Options& options, const std::string& default_prompt = "Every effort moves you",
                        int64_t default_max_new_tokens = 50, double default_temperature = 0.0, int64_t default_top_k = 0);

/// Those flags as SamplingOptions (validated).
SamplingOptions sampling_from_flags(const cxxopts::ParseResult& args);

/// generate() as the lesson calls it: the global generator seeded with --seed right
/// before, so that the same weights, prompt and seed give the lesson's text; then what
/// --save-outputs records (record_sampling), when given. Returns prompt and new ids.
torch::Tensor generate_from_flags(const cxxopts::ParseResult& args, LanguageModelImpl& model, const torch::Tensor& prompt,
                                  const SamplingOptions& sampling);

}  // namespace llm
