#include "llm/attention/attention_options.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

void check_attention_options(const AttentionOptions& o, std::string_view module, bool heads, bool groups) {
  const auto positive = [&](const char* name, int64_t value) {
    if (value <= 0) throw Error(fmt::format("{}: {} must be positive, got {}", module, name, value));
  };
  positive("d_in", o.d_in());
  positive("d_out", o.d_out());
  positive("context_length", o.context_length());
  if (!(o.dropout() >= 0.0 && o.dropout() < 1.0)) {
    throw Error(fmt::format("{}: dropout must be in [0, 1), got {}", module, o.dropout()));
  }
  if (heads) {
    positive("num_heads", o.num_heads());
    if (o.d_out() % o.num_heads() != 0) {
      throw Error(fmt::format("{}: d_out ({}) must be divisible by num_heads ({})", module, o.d_out(), o.num_heads()));
    }
  }
  if (groups && o.num_kv_groups() != 0) {
    positive("num_kv_groups", o.num_kv_groups());
    if (o.num_heads() % o.num_kv_groups() != 0) {
      throw Error(fmt::format("{}: num_heads ({}) must be divisible by num_kv_groups ({})", module, o.num_heads(),
                              o.num_kv_groups()));
    }
  }
}

}  // namespace llm
