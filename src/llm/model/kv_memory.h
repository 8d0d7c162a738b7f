#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm {

// Chapter 4's memory estimators (the course's ch04/04_gqa, 05_mla, 06_swa and 07_moe
// memory_estimator_*.py): what a KV cache costs with multi-head, grouped-query and
// multi-head latent attention and with sliding windows, and what a mixture of experts
// holds against the dense feed-forward it replaces. Each table reads, to the byte, as
// the course's script prints it for the same flags.

/// Bytes per element of the estimators' --dtype: fp32 4, bf16 and fp16 2, fp8 and
/// int8 1. Throws llm::Error naming the choices for any other name.
int64_t estimator_dtype_bytes(std::string_view dtype);

/// The settings the KV-cache estimators share (the course's flags of the same names).
struct KvCacheShape {
  int64_t context_length = 1024;
  int64_t emb_dim = 0;
  int64_t n_heads = 0;
  int64_t n_layers = 0;
  /// Query heads per key/value head (GQA); must divide n_heads.
  int64_t n_kv_groups = 1;
  int64_t batch_size = 1;
  std::string dtype = "fp16";
};

/// A sliding-window layout (memory_estimator_swa.py): a window of W positions, and
/// "a:b" sliding-window layers to full ones, repeated through the stack.
struct SlidingWindowLayout {
  int64_t sliding_window_size = 0;
  std::string swa_ratio = "1:0";
};

/// A feed-forward against its mixture of experts (memory_estimator_moe.py).
struct MoeShape {
  int64_t emb_dim = 0;
  int64_t hidden_dim = 0;
  /// "gelu" (two matrices) or "swiglu" (three).
  std::string ffn_type = "swiglu";
  int64_t num_experts = 8;
  int64_t top_k = 2;
  std::string dtype = "bf16";
  /// Shrink each expert's hidden size so that the experts and the router hold about
  /// as many parameters as the dense layer.
  bool match_dense = false;
};

/// The tables of memory_estimator_gqa.py, _mla.py (with `latent_dim`), _swa.py and
/// _moe.py. Each throws llm::Error, in the course's words where it has them, when the
/// settings cannot be estimated (n_kv_groups not dividing n_heads, a bad ratio, a
/// dense layer too small for its experts, a size past 2^63 bytes).
std::string gqa_memory_table(const KvCacheShape& shape);
std::string mla_memory_table(const KvCacheShape& shape, int64_t latent_dim);
std::string swa_memory_table(const KvCacheShape& shape, const SlidingWindowLayout& layout);
std::string moe_memory_table(const MoeShape& shape);

/// The course's plots of the same (plot_memory_estimates_*.py), as their READMEs
/// draw them: GQA's and MLA's total KV cache against the context length for several
/// group counts and latent sizes, SWA 5:1 over MHA and GQA, and a MoE's active and
/// total parameters against its number of experts. Each is a panel for
/// scripts/plot_series.py: {title, xlabel, ylabel, xlog, ylog, series: [{label, x, y,
/// marker, linestyle}], hlines: [{y, label}]}. `name` is gqa, mla, swa, moe or
/// deltanet: ch04/08_deltanet's plot of full attention's KV cache against Gated
/// DeltaNet's fixed state, alone and in a 3:1 mix (a plot with no estimator table).
nlohmann::json memory_plot_panel(std::string_view name);

}  // namespace llm
