// Debian's libtorch-dev 1.13 ships c10d's reducer.hpp (DistributedDataParallel's
// engine) but not this header of distributed autograd, which reducer.hpp includes
// for two names: the GradCallback type it checks its own against, and ContextPtr, the
// shared_ptr a Reducer member holds (the RPC context of distributed autograd, which
// this project does not use). This stand-in declares both as LibTorch 1.13 defines them
// (torch/csrc/distributed/autograd/context/context.h), so that the Reducer's layout is
// the library's; nothing else of distributed autograd is declared or compiled here.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch::distributed::autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace torch::distributed::autograd
