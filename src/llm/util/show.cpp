#include "llm/util/show.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>
#include <unordered_set>

namespace llm {

std::string show(const torch::Tensor& tensor) {
  std::ostringstream out;
  out << tensor.detach().cpu();
  return out.str();
}

std::string show_ids(const torch::Tensor& ids) {
  const auto flat = ids.flatten().to(torch::kCPU, torch::kLong).contiguous();
  return fmt::format("[{}]", fmt::join(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel(), ", "));
}

std::string shape(const torch::Tensor& tensor) { return fmt::format("[{}]", fmt::join(tensor.sizes(), ", ")); }

int64_t parameter_count(const torch::nn::Module& module) {
  std::unordered_set<const void*> seen;
  int64_t count = 0;
  for (const auto& p : module.parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) count += p.numel();
  }
  return count;
}

}  // namespace llm
