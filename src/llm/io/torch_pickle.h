#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "llm/io/tensor_archive.h"

namespace llm {

/// Reads the dict of tensors in a torch.save zip archive (`bytes` is the whole file,
/// `source` names it in errors); the tensors are copies of the bytes. Unlike
/// torch::pickle_load it reads what torch.save(model.state_dict()) writes: an
/// OrderedDict with _metadata, tensors rebuilt by torch._utils._rebuild_tensor_v2 (or
/// _rebuild_parameter) from their storages. It understands the pickle opcodes of
/// protocol 2 that such files use and rejects any other with an llm::Error.
NamedTensors read_torch_archive(std::string_view bytes, const std::string& source);

/// The same, from the file at `path`, mapped copy-on-write: each tensor views the
/// file's bytes, which are read as they are touched and given back when the last
/// tensor on their storage goes. The file is never held whole.
NamedTensors load_torch_archive(const std::filesystem::path& path);

}  // namespace llm
