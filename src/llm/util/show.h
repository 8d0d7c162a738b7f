#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

/// PyTorch's print options (torch.set_printoptions), with its defaults.
struct PrintOptions {
  /// Digits after the point.
  int precision = 4;
  /// Elements above which only the first and last `edgeitems` of each dimension show.
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  /// Scientific notation on or off; unset, it is chosen from the values as PyTorch does.
  std::optional<bool> sci_mode;
};

/// A tensor exactly as PyTorch's print() shows it, so that a lesson's printout and
/// ours read the same: "tensor([[0.2260, 0.3470],\n        [0.2133, 0.2394]],
/// grad_fn=<ReluBackward0>)", with the dtype suffix for other than float32, int64
/// and bool, and the device suffix off the CPU.
std::string show(const torch::Tensor& tensor, const PrintOptions& options = {});

/// A string as Python's repr() shows it: 'It\'s' is "It's", with \n, \t and \xNN
/// escapes for control characters.
std::string python_repr(std::string_view text);

/// `text` with each newline a space, as the lessons print a sample on one line
/// (generate_and_print_sample's replace("\\n", " ")).
std::string one_line(std::string text);

/// A list of strings as Python prints one: ['Hello', ',', 'world'].
std::string python_list(const std::vector<std::string>& items);

/// Token ids on one line: "[15496, 11, 314]".
std::string show_ids(const torch::Tensor& ids);

/// "[2, 6, 4]"
std::string shape(const torch::Tensor& tensor);

/// A tensor's shape as PyTorch prints tensor.shape: "torch.Size([2, 6, 4])".
std::string torch_size(const torch::Tensor& tensor);

/// An integer with thousands separators, as Python's f"{n:,}": "163,009,536".
std::string thousands(int64_t n);

/// Trainable parameters of a module (shared tensors counted once).
int64_t parameter_count(const torch::nn::Module& module);

}  // namespace llm
