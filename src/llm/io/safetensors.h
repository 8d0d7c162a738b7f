#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "llm/io/tensor_archive.h"

namespace llm {

/// The safetensors format (Hugging Face's): an 8-byte little-endian header length N,
/// N bytes of JSON, then the tensors' bytes, little-endian and row-major. The header
/// maps each name to {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}
/// (offsets into the data that follows), plus an optional "__metadata__" object of
/// strings.

/// Whether `bytes` (a file's first bytes, at least 9) look like a safetensors file:
/// an 8-byte header length, then '{'. Whether the length fits is read_safetensors's
/// check, which names a bad one.
bool looks_like_safetensors(std::string_view bytes);

/// Reads the tensors of a safetensors file's bytes, in the order of their data,
/// copied out in their stored dtype. Everything is bounds-checked: the header at
/// most 100 MB and inside the file, known dtypes, shapes whose byte count is the
/// offsets' span, offsets inside the data, no overlaps, no bytes that no tensor
/// covers, no duplicate names. A violation is an llm::Error naming `source` and the
/// key.
NamedTensors read_safetensors(std::string_view bytes, const std::string& source);

/// The same from a file, memory-mapped: aligned tensors are views of the mapping
/// (copy-on-write, kept alive by the tensors), others are copied. A view's pages leave
/// the process's memory when the view goes, so that a reader that lets each tensor go
/// once used (load_state_dict, with the tensors moved into it) never holds the whole
/// file.
NamedTensors load_safetensors(const std::filesystem::path& path);

/// The file's bytes for `tensors` (contiguous CPU copies of them, in this order),
/// with `metadata` as "__metadata__", and writing them atomically to `path`.
std::string safetensors_bytes(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata = {});
void save_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace llm
