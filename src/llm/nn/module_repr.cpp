#include "llm/nn/module_repr.h"

#include <fmt/format.h>

#include <sstream>
#include <utility>
#include <vector>

namespace llm {
namespace {

// PyTorch's _addindent: every line but the first moved right by `spaces`.
std::string indented(const std::string& text, int spaces) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<size_t>(spaces), ' ');
  }
  return out;
}

std::string leaf_repr(const torch::nn::Module& module) {
  if (const auto* embedding = module.as<torch::nn::EmbeddingImpl>()) {
    return fmt::format("Embedding({}, {})", embedding->options.num_embeddings(), embedding->options.embedding_dim());
  }
  if (const auto* dropout = module.as<torch::nn::DropoutImpl>()) {
    return fmt::format("Dropout(p={}, inplace={})", dropout->options.p(), dropout->options.inplace() ? "True" : "False");
  }
  std::ostringstream text;
  module.pretty_print(text);
  // LibTorch's default pretty_print writes the name alone; PyTorch adds "()".
  return text.str() == module.name() ? module.name() + "()" : text.str();
}

std::string block(const std::string& name, const std::vector<std::string>& lines) {
  std::string out = name + "(";
  for (const auto& line : lines) out += "\n  " + indented(line, 2);
  return out + "\n)";
}

// nn.ModuleList.__repr__: consecutive children with equal text print once, as
// "(first-last): n x text".
std::string list_repr(const torch::nn::Module& list) {
  std::vector<std::pair<std::pair<size_t, size_t>, std::string>> runs;  // (first, last), text
  size_t index = 0;
  for (const auto& child : list.children()) {
    auto text = module_repr(*child);
    if (!runs.empty() && runs.back().second == text) {
      runs.back().first.second = index;
    } else {
      runs.push_back({{index, index}, std::move(text)});
    }
    ++index;
  }
  std::vector<std::string> lines;
  for (const auto& [range, text] : runs) {
    const auto [first, last] = range;
    lines.push_back(first == last ? fmt::format("({}): {}", first, text)
                                  : fmt::format("({}-{}): {} x {}", first, last, last - first + 1, text));
  }
  return block("ModuleList", lines);
}

}  // namespace

std::string module_repr(const torch::nn::Module& module) {
  const auto children = module.named_children();
  if (children.is_empty()) return leaf_repr(module);
  if (module.name() == "ModuleList") return list_repr(module);
  std::vector<std::string> lines;
  for (const auto& child : children) lines.push_back(fmt::format("({}): {}", child.key(), module_repr(*child.value())));
  return block(module.name(), lines);
}

}  // namespace llm
