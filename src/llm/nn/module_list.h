#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace llm {

/// PyTorch's nn.ModuleList (and nn.Sequential's names) for modules of one type: the
/// modules are registered as "0", "1", ..., so the state dict carries PyTorch's names,
/// and they are held as their own type, so callers reach a block's members without a
/// downcast. `Holder` is a module holder such as TransformerBlock.
template <typename Holder>
struct ModuleListOfImpl : torch::nn::Module {
  ModuleListOfImpl() : torch::nn::Module("ModuleList") {}

  void push_back(Holder module) { modules.push_back(register_module(std::to_string(modules.size()), std::move(module))); }
  size_t size() const { return modules.size(); }
  Holder& operator[](size_t index) { return modules.at(index); }
  const Holder& operator[](size_t index) const { return modules.at(index); }
  Holder& back() { return modules.back(); }
  const Holder& back() const { return modules.back(); }
  auto begin() { return modules.begin(); }
  auto end() { return modules.end(); }
  auto begin() const { return modules.begin(); }
  auto end() const { return modules.end(); }

 private:
  std::vector<Holder> modules;
};

template <typename Holder>
using ModuleListOf = torch::nn::ModuleHolder<ModuleListOfImpl<Holder>>;

}  // namespace llm
