#pragma once

#include <cxxopts.hpp>

#include <string>

#include "llm/model/gpt_config.h"
#include "llm/model/gpt_model.h"

namespace llm::cli {

/// Chapter 4's KV-cache bonus scripts (the course's ch04/05_mla, 06_swa and 07_moe):
/// each builds a GPT variant after seed 123 in bfloat16, continues "Hello, I am"
/// greedily for --max-new-tokens and prints the ids, the text, the time and the
/// memory. These are the flags they share, with dashes for the course's underscores:
/// --emb-dim, --n-heads, --n-layers and --max-new-tokens.
void add_course_script_flags(cxxopts::Options& options);

/// The flags of one script's variant, named as its script's, with its defaults:
///  - "gqa" (gpt_with_kv_gqa.py): --n-kv-groups;
///  - "mla": --latent-dim;
///  - "swa": --sliding-window-size, --sliding-window-stride;
///  - "moe": --hidden-dim, --num-experts, --num-experts-per-tok, --no-kv-cache;
///  - "mha" (gpt_with_kv_mha.py): none.
void add_course_variant_flags(cxxopts::Options& options, const std::string& variant);

/// The GPT the script of `variant` builds: the flags' sizes, no dropout, the prompt's
/// tokens and max_new_tokens as context_length, and the variant's own keys from its
/// flags. "mha" is the scripts' multi-head attention, which keeps no mask buffer: the
/// sliding-window layout with no sliding layer. An impossible config is a bad flag
/// value (exit 2).
GPTConfig course_script_config(const cxxopts::ParseResult& args, const std::string& variant);

/// What a script does with its config: the model after the seed, in bfloat16, on
/// --device; the IN block; generation, greedy, through the KV cache unless `kv_cache`
/// is false; then the OUT block with the time, tokens/s and the process's peak
/// resident memory once the model is in bfloat16, where the course prints CUDA's "Max
/// memory allocated" (the model on the GPU, the cache, the activations). With
/// `ff_time_label`, the blocks' feed-forward calls are timed and their average printed
/// after generating, as the course's MoE script prints "Avg MoE FF time/call".
/// --save-outputs writes the ids (`generated`: the prompt's and the new ones) and the
/// model's logits over all of them without the cache (`logits`, bfloat16).
void run_course_script(const GPTConfig& config, const cxxopts::ParseResult& args, bool kv_cache = true,
                       const std::string& ff_time_label = "");

}  // namespace llm::cli
