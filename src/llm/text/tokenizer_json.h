#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// A tokenizer from Hugging Face's tokenizer.json: a BPE model, byte-level (Llama 3,
/// Qwen3) or SentencePiece-style with byte fallback (Gemma 3), with the file's added
/// tokens, normalizer (NFC, Replace), pre-tokenizer (Split, ByteLevel) and decoder
/// (ByteLevel, or Replace with ByteFallback and Fuse). Anything else in the file is
/// refused with one line naming it. The post-processor is not applied: encode() adds
/// no BOS, as the course's tokenizer classes add none unless asked.
///
/// Hugging Face's merging rule applies (only the listed pairs merge); \s in the
/// pre-tokenizer's pattern means Unicode's White_Space, as in Rust.
BpeTokenizer parse_tokenizer_json(std::string_view json, std::string_view name = "tokenizer.json");

/// Reads and parses a tokenizer.json file (at most 1 GiB).
BpeTokenizer load_tokenizer_json(const std::filesystem::path& path);

/// The tokenizers the project fetches: gpt2, llama3, qwen3 and gemma3.
const std::vector<std::string_view>& tokenizer_names();

/// A tokenizer by name (see tokenizer_names(): GPT-2's from data/gpt2/, the others
/// from data/tokenizers/NAME/tokenizer.json), or else the tokenizer.json at that path.
BpeTokenizer tokenizer_named(std::string_view name_or_path);

}  // namespace llm
