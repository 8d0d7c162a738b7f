#pragma once

#include <string>

#include "llm/io/tensor_archive.h"

namespace llm {

/// Reads the dict of tensors in a torch.save zip archive (`bytes` is the whole file,
/// `source` names it in errors). Unlike torch::pickle_load it reads what
/// torch.save(model.state_dict()) writes: an OrderedDict with _metadata, tensors
/// rebuilt by torch._utils._rebuild_tensor_v2 (or _rebuild_parameter) from their
/// storages. It understands the pickle opcodes of protocol 2 that such files use and
/// rejects any other with an llm::Error.
NamedTensors read_torch_archive(const std::string& bytes, const std::string& source);

}  // namespace llm
