#include "llm/util/show.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <vector>

namespace llm {
namespace {

// torch/_tensor_str.py, line for line where it matters: one formatter for all the
// elements shown (the same width for each), chosen from their nonzero finite values.
class Formatter {
 public:
  Formatter(const torch::Tensor& shown, const PrintOptions& options) : precision_(options.precision) {
    const auto values = shown.reshape(-1);
    floating_ = values.is_floating_point();
    if (!floating_) {
      for (int64_t i = 0; i < values.numel(); ++i) width_ = std::max(width_, text_of(values[i]).size());
      return;
    }
    const auto nonzero = values.masked_select(torch::isfinite(values) & values.ne(0)).to(torch::kDouble);
    if (nonzero.numel() > 0) {
      const double min = nonzero.abs().min().item<double>(), max = nonzero.abs().max().item<double>();
      int_mode_ = torch::equal(nonzero, nonzero.ceil());
      sci_mode_ = max / min > 1000.0 || max > 1.0e8 || (!int_mode_ && min < 1.0e-4);
      const auto data = nonzero.contiguous();
      for (const double value : c10::ArrayRef<double>(data.data_ptr<double>(), data.numel())) {
        const auto text = sci_mode_  ? fmt::format("{:.{}e}", value, precision_)
                          : int_mode_ ? fmt::format("{:.0f}.", value)
                                      : fmt::format("{:.{}f}", value, precision_);
        width_ = std::max(width_, text.size());
      }
    }
    if (options.sci_mode) sci_mode_ = *options.sci_mode;
  }

  size_t width() const { return width_; }

  std::string operator()(const torch::Tensor& scalar) const {
    std::string text = text_of(scalar);
    return std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') + text;
  }

 private:
  std::string text_of(const torch::Tensor& scalar) const {
    if (scalar.scalar_type() == torch::kBool) return scalar.item<bool>() ? "True" : "False";
    if (!floating_) return std::to_string(scalar.item<int64_t>());
    const double value = scalar.item<double>();
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    if (sci_mode_) return fmt::format("{:.{}e}", value, precision_);
    if (int_mode_) return fmt::format("{:.0f}.", value);
    return fmt::format("{:.{}f}", value, precision_);
  }

  int precision_;
  bool floating_ = false, int_mode_ = true, sci_mode_ = false;
  size_t width_ = 1;
};

// The elements that will be shown: all of them, or the edges of each dimension.
torch::Tensor summarized(const torch::Tensor& t, const PrintOptions& o) {
  if (t.dim() == 0) return t;
  const int64_t n = t.size(0);
  std::vector<torch::Tensor> rows;
  const auto keep = [&](int64_t i) { rows.push_back(t.dim() == 1 ? t[i] : summarized(t[i], o)); };
  for (int64_t i = 0; i < n; ++i) {
    if (n <= 2 * o.edgeitems || i < o.edgeitems || i >= n - o.edgeitems) keep(i);
  }
  return torch::stack(rows);
}

std::string body(const torch::Tensor& t, int64_t indent, bool summarize, const Formatter& format,
                 const PrintOptions& o) {
  if (t.dim() == 0) return format(t);
  const int64_t n = t.size(0);
  const bool cut = summarize && n > 2 * o.edgeitems;
  std::vector<std::string> items;
  for (int64_t i = 0; i < n; ++i) {
    if (cut && i == o.edgeitems) {
      items.emplace_back(t.dim() == 1 ? " ..." : "...");
      i = n - o.edgeitems;
    }
    items.push_back(t.dim() == 1 ? format(t[i]) : body(t[i], indent + 1, summarize, format, o));
  }
  if (t.dim() > 1) {
    const auto separator = "," + std::string(t.dim() - 1, '\n') + std::string(indent + 1, ' ');
    return fmt::format("[{}]", fmt::join(items, separator));
  }
  const auto per_line = std::max<int64_t>(1, (o.linewidth - indent) / static_cast<int64_t>(format.width() + 2));
  std::vector<std::string> lines;
  for (size_t i = 0; i < items.size(); i += per_line) {
    const auto end = std::min(items.size(), i + static_cast<size_t>(per_line));
    lines.push_back(fmt::format("{}", fmt::join(items.begin() + i, items.begin() + end, ", ")));
  }
  return fmt::format("[{}]", fmt::join(lines, ",\n" + std::string(indent + 1, ' ')));
}

std::string python_dtype(c10::ScalarType type) {
  std::string name = c10::toString(type);  // "Half", "Int", ...
  static const std::pair<c10::ScalarType, const char*> kNames[] = {
      {torch::kFloat64, "float64"}, {torch::kFloat16, "float16"}, {torch::kBFloat16, "bfloat16"},
      {torch::kInt32, "int32"},     {torch::kInt16, "int16"},     {torch::kInt8, "int8"},
      {torch::kUInt8, "uint8"}};
  for (const auto& [t, python] : kNames) {
    if (t == type) name = python;
  }
  return "torch." + name;
}

}  // namespace

std::string show(const torch::Tensor& tensor, const PrintOptions& options) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  auto t = tensor.detach().cpu();
  if (t.scalar_type() == torch::kHalf || t.scalar_type() == torch::kBFloat16) t = t.to(torch::kFloat);
  std::vector<std::string> suffixes;
  if (!tensor.device().is_cpu()) suffixes.push_back(fmt::format("device='{}'", tensor.device().str()));
  const auto type = tensor.scalar_type();
  const bool default_dtype = type == torch::kFloat || type == torch::kLong || type == torch::kBool;
  std::string text;
  if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back(fmt::format("size=({}{})", fmt::join(t.sizes(), ", "), t.dim() == 1 ? "," : ""));
    if (type != torch::kFloat) suffixes.push_back("dtype=" + python_dtype(type));
    text = "[]";
  } else {
    if (!default_dtype) suffixes.push_back("dtype=" + python_dtype(type));
    const bool summarize = t.numel() > options.threshold;
    const Formatter format(summarize ? summarized(t, options) : t, options);
    text = body(t, indent, summarize, format, options);
  }
  if (tensor.grad_fn()) {
    auto name = tensor.grad_fn()->name();
    name = name.substr(name.rfind("::") == std::string::npos ? 0 : name.rfind("::") + 2);
    suffixes.push_back(fmt::format("grad_fn=<{}>", name));
  } else if (tensor.requires_grad()) {
    suffixes.emplace_back("requires_grad=True");
  }
  std::string out = prefix + text;
  // As PyTorch counts it: the last line's length plus one, plus two on the first line.
  const auto newline = out.rfind('\n');
  int64_t last_line = static_cast<int64_t>(out.size()) - (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  for (const auto& suffix : suffixes) {
    const auto length = static_cast<int64_t>(suffix.size());
    if (last_line + length + 2 > options.linewidth) {
      out += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + length;
    } else {
      out += ", " + suffix;
      last_line += length + 2;
    }
  }
  return out + ")";
}

std::string python_repr(std::string_view text) {
  const bool single = text.find('\'') == std::string_view::npos || text.find('"') != std::string_view::npos;
  const char quote = single ? '\'' : '"';
  std::string out(1, quote);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out + quote;
}

std::string python_list(const std::vector<std::string>& items) {
  std::vector<std::string> shown;
  shown.reserve(items.size());
  for (const auto& item : items) shown.push_back(python_repr(item));
  return fmt::format("[{}]", fmt::join(shown, ", "));
}

std::string show_ids(const torch::Tensor& ids) {
  const auto flat = ids.flatten().to(torch::kCPU, torch::kLong).contiguous();
  return fmt::format("[{}]", fmt::join(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel(), ", "));
}

std::string shape(const torch::Tensor& tensor) { return fmt::format("[{}]", fmt::join(tensor.sizes(), ", ")); }

std::string torch_size(const torch::Tensor& tensor) { return fmt::format("torch.Size({})", shape(tensor)); }

std::string thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

int64_t parameter_count(const torch::nn::Module& module) {
  std::unordered_set<const void*> seen;
  int64_t count = 0;
  for (const auto& p : module.parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) count += p.numel();
  }
  return count;
}

std::string one_line(std::string text) {
  for (auto& c : text) c = c == '\n' ? ' ' : c;
  return text;
}

}  // namespace llm
