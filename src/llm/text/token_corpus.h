#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"

namespace llm {

/// Whether GPT-2's pre-tokenizer ends a piece at byte `p` of `text` whatever text
/// surrounds these bytes, so that encoding text[..p] and text[p..] apart gives the
/// ids of the whole (BPE merges stay inside a piece). Two places qualify, both made
/// of ASCII only, so that a cut never falls inside a character or a special token:
///   "x\n|y"  after a newline between two graphic characters: the newline is a piece
///            of its own, as `\s+(?!\S)` cannot take it and `\s+` takes it alone;
///   "x| y"   before a space between a graphic character and a letter: the space
///            begins the word's piece ` ?\p{L}+`.
bool is_safe_cut(std::string_view text, size_t p);
/// The last safe cut in [1, before] (npos when there is none), and the first in
/// [from, text.size()).
size_t last_safe_cut(std::string_view text, size_t before);
size_t first_safe_cut(std::string_view text, size_t from);

/// The token between documents, GPT-2's.
inline constexpr std::string_view kEndOfText = "<|endoftext|>";

/// The lessons' allowed_special={"<|endoftext|>"} for `tokenizer`: kEndOfText where its
/// vocabulary has that special token, else nothing (Llama 3's has none; a
/// tokenizer.json's added tokens are recognised anyway).
std::set<std::string> end_of_text_allowed(const BpeTokenizer& tokenizer);

/// The text one encode() call of encode_in_parallel takes, about: its cache of pieces
/// stays small enough for the CPU's caches (a 32 MB call runs at half the speed).
inline constexpr size_t kEncodePart = size_t{1} << 20;

/// tokenizer.encode(text) on up to `threads` threads: the text is cut at safe cuts
/// into parts of about kEncodePart bytes, which the threads take in turn. The same
/// ids. A literal "<|endoftext|>" in the text is ordinary text (nanoGPT's
/// encode_ordinary): a document's own words never end it; the id between documents
/// is the caller's to write.
std::vector<int64_t> encode_in_parallel(const BpeTokenizer& tokenizer, std::string_view text, int threads);

}  // namespace llm
