#include "llm/model/kv_memory.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "llm/util/error.h"
#include "llm/util/show.h"

namespace llm {
namespace {

// Python's f"{x:,.2f}": fmt's fixed notation rounds the double's exact value as
// Python does; the separators go into the whole part.
std::string grouped_fixed(double x, int precision = 2) {
  std::string text = fmt::format("{:.{}f}", x, precision);
  const size_t sign = text[0] == '-' ? 1 : 0;
  const size_t point = text.find('.');
  for (size_t at = point; at > sign + 3; at -= 3) text.insert(at - 3, ",");
  return text;
}

// The estimators' convert_bytes: decimal gigabytes, n / 1000**3 (Python's true
// division, correctly rounded: long double keeps n exact before the one rounding).
std::string convert_bytes(int64_t n) {
  return grouped_fixed(static_cast<double>(static_cast<long double>(n) / 1e9L)) + " GB";
}

// The product of the factors, refused past int64 (Python's integers do not overflow;
// an estimate past 9.2 exabytes is no estimate).
int64_t product(std::initializer_list<int64_t> factors) {
  int64_t total = 1;
  for (const int64_t f : factors) {
    if (__builtin_mul_overflow(total, f, &total)) throw Error("the estimate passes 2^63 bytes; use smaller settings");
  }
  return total;
}

int64_t sum(int64_t a, int64_t b) {
  int64_t total = 0;
  if (__builtin_add_overflow(a, b, &total)) throw Error("the estimate passes 2^63 bytes; use smaller settings");
  return total;
}

// math.ceil(emb_dim / n_heads).
int64_t head_dim_of(const KvCacheShape& shape) { return (shape.emb_dim + shape.n_heads - 1) / shape.n_heads; }

int64_t kv_heads_gqa(const KvCacheShape& shape) {
  if (shape.n_heads % shape.n_kv_groups != 0) {
    throw Error(fmt::format("--n-kv-groups must divide --n-heads exactly, got {} and {}", shape.n_kv_groups,
                            shape.n_heads));
  }
  return shape.n_heads / shape.n_kv_groups;
}

// calc_kv_bytes_total: K and V of every position, head and layer.
int64_t kv_bytes(const KvCacheShape& shape, int64_t positions, int64_t kv_heads, int64_t layers) {
  return product({shape.batch_size, positions, head_dim_of(shape), kv_heads, 2,
                  estimator_dtype_bytes(shape.dtype), layers});
}

// The "==== Config ====" block the KV-cache estimators open with: the cfg dict's
// entries at `width`, then the lines they all share.
std::string config_block(const std::vector<std::pair<std::string, int64_t>>& cfg, size_t width,
                         const KvCacheShape& shape) {
  std::string out = "==== Config ====\n";
  for (const auto& [key, value] : cfg) out += fmt::format("{:<{}}: {}\n", key, width, value);
  out += fmt::format("{:<{}}: {}\n", "batch_size", width, shape.batch_size);
  out += fmt::format("{:<{}}: {} ({} Bytes/elem)\n", "dtype", width, shape.dtype, estimator_dtype_bytes(shape.dtype));
  out += fmt::format("{:<{}}: {}\n", "head_dim", width, head_dim_of(shape));
  out += fmt::format("{:<{}}: {}\n", "GQA n_kv_heads", width, kv_heads_gqa(shape));
  return out;
}

std::vector<std::pair<std::string, int64_t>> shape_entries(const KvCacheShape& shape) {
  return {{"context_length", shape.context_length},
          {"emb_dim", shape.emb_dim},
          {"n_heads", shape.n_heads},
          {"n_layers", shape.n_layers},
          {"n_kv_groups", shape.n_kv_groups}};
}

// "Ratio (MHA / GQA)   : 4.00x" and "Savings (GQA vs MHA): 75.00%".
std::string ratio_lines(const std::string& variant, int64_t mha, int64_t other) {
  const double ratio = static_cast<double>(mha) / static_cast<double>(other);
  const double savings = 1.0 - static_cast<double>(other) / static_cast<double>(mha);
  return fmt::format("Ratio (MHA / {})   : {}x\nSavings ({} vs MHA): {}%\n", variant, grouped_fixed(ratio), variant,
                     grouped_fixed(savings * 100));
}

// parse_ratio: "a:b", two whole numbers of which one is positive.
std::pair<int64_t, int64_t> parse_ratio(const std::string& ratio) {
  const auto bad = [&] {
    return Error(fmt::format("--swa-ratio must be 'a:b', whole numbers a, b >= 0 with a+b > 0, got '{}'", ratio));
  };
  const size_t colon = ratio.find(':');
  if (colon == std::string::npos) throw bad();
  std::array<int64_t, 2> parts{};
  const std::array<std::string_view, 2> texts{std::string_view(ratio).substr(0, colon),
                                              std::string_view(ratio).substr(colon + 1)};
  for (size_t i = 0; i < 2; ++i) {
    const auto* end = texts[i].data() + texts[i].size();
    const auto [ptr, ec] = std::from_chars(texts[i].data(), end, parts[i]);
    if (texts[i].empty() || ec != std::errc() || ptr != end || parts[i] < 0) throw bad();
  }
  int64_t block = 0;
  if (__builtin_add_overflow(parts[0], parts[1], &block) || block == 0) throw bad();
  return {parts[0], parts[1]};
}

int64_t ffn_matrices(const std::string& ffn_type) {
  if (ffn_type == "gelu") return 2;
  if (ffn_type == "swiglu") return 3;
  throw Error(fmt::format("--ffn-type must be gelu or swiglu, got '{}'", ffn_type));
}

// The plots' context lengths, 256 to 131,072 tokens.
constexpr std::array<int64_t, 10> kContextLengths{256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};

nlohmann::json series(const std::string& label, const std::vector<double>& x, const std::vector<double>& y,
                      const std::string& marker = "o", const std::string& linestyle = "-") {
  return {{"label", label}, {"x", x}, {"y", y}, {"marker", marker}, {"linestyle", linestyle}};
}

nlohmann::json context_panel(const std::string& title) {
  return {{"title", title},       {"xlabel", "context_length (log scale)"}, {"ylabel", "Total KV cache (GB)"},
          {"xlog", true},         {"ylog", false},                          {"series", nlohmann::json::array()},
          {"hlines", nlohmann::json::array()}};
}

// plot_memory_estimates_gqa.py: 24 heads of 2,048 dimensions over 48 layers in
// bfloat16, with MHA against 4, 8, 12 and 24 query heads per key/value head; its
// gigabytes rounded to two places, as the script reads them back from text.
nlohmann::json gqa_panel() {
  auto panel = context_panel(
      "KV-cache vs Context Length — MHA vs GQA (multi-group)\n"
      "(n_heads=24, emb_dim=2048, n_layers=48, batch=1, dtype=bf16)");
  const KvCacheShape shape{0, 2048, 24, 48, 1, 1, "bf16"};
  const std::vector<double> x(kContextLengths.begin(), kContextLengths.end());
  const auto gigabytes = [&](int64_t kv_heads) {
    std::vector<double> y;
    for (const int64_t length : kContextLengths) {
      y.push_back(std::stod(fmt::format("{:.2f}", static_cast<double>(kv_bytes(shape, length, kv_heads, 48)) / 1e9)));
    }
    return y;
  };
  panel["series"].push_back(series("MHA (KV total)", x, gigabytes(24)));
  for (const int64_t groups : {4, 8, 12, 24}) {
    const int64_t kv_heads = 24 / groups;
    panel["series"].push_back(series(fmt::format("GQA (n_kv_groups={}, {}× compression)", groups,
                                                 grouped_fixed(24.0 / static_cast<double>(kv_heads), 1)),
                                     x, gigabytes(kv_heads)));
  }
  return panel;
}

// plot_memory_estimates_mla.py: the same model, MHA against latents of 1,024, 512,
// 256 and 64 dimensions (its head_dim is emb_dim / n_heads, unrounded).
nlohmann::json mla_panel() {
  auto panel = context_panel(
      "KV-cache vs Context Length — MHA vs MLA\n(n_heads=24, emb_dim=2048, n_layers=48, batch=1, dtype=bf16)");
  const std::vector<double> x(kContextLengths.begin(), kContextLengths.end());
  const auto mha = [](double length) { return length * (2048.0 / 24.0) * 24 * 2 * 2 * 48; };
  const auto mla = [](double length, double latent_dim) { return length * 48 * latent_dim * 2; };
  std::vector<double> mha_gb;
  for (const double length : x) mha_gb.push_back(mha(length) / 1e9);
  panel["series"].push_back(series("MHA (KV total)", x, mha_gb));
  for (const int64_t latent_dim : {1024, 512, 256, 64}) {
    std::vector<double> y;
    for (const double length : x) y.push_back(mla(length, static_cast<double>(latent_dim)) / 1e9);
    const double compression = mha(x.back()) / mla(x.back(), static_cast<double>(latent_dim));
    panel["series"].push_back(series(
        fmt::format("MLA (latent_dim={}, {}× compression)", latent_dim, grouped_fixed(compression, 1)), x, y));
  }
  return panel;
}

// plot_memory_estimates_swa.py with its README's flags: 48 heads of 4,096 dimensions
// over 36 layers in bfloat16, a window of 2,048 in 5 of every 6 layers, over MHA and
// over GQA with 4 groups (its layer split is round(36 * 5/6), its windows not capped
// by the context).
nlohmann::json swa_panel() {
  auto panel = context_panel(
      "KV-cache vs Context Length — MHA vs GQA (SWA overlays)\n"
      "(n_heads=48, emb_dim=4096, n_layers=36, batch=1, dtype=bf16; SWA ratio=5:1, W=2048)");
  const std::vector<double> x(kContextLengths.begin(), kContextLengths.end());
  const auto total = [](double length, double layers) { return length * 4096 * 2 * 2 * layers; };
  const double swa_layers = std::round(36.0 * 5 / 6), full_layers = 36 - swa_layers;
  std::array<std::vector<double>, 4> y;
  for (const double length : x) {
    const double mixed = total(length, full_layers) + total(2048, swa_layers);
    y[0].push_back(total(length, 36) / 1e9);
    y[1].push_back(mixed / 1e9);
    y[2].push_back(total(length, 36) / 4 / 1e9);
    y[3].push_back((total(length, full_layers) / 4 + total(2048, swa_layers) / 4) / 1e9);
  }
  panel["series"] = {series("MHA (KV total)", x, y[0]), series("SWA on MHA (ratio 5:1, W=2048)", x, y[1], "o", "--"),
                     series("GQA kv_groups=4 (full)", x, y[2]),
                     series("SWA on GQA kv_groups=4 (ratio 5:1, W=2048)", x, y[3], "o", "--")};
  panel["series"][0]["color"] = panel["series"][1]["color"] = "#1f77b4";
  panel["series"][2]["color"] = panel["series"][3]["color"] = "#ff7f0e";
  panel["wide"] = true;
  return panel;
}

// plot_memory_estimates_moe.py with its README's flags: a SwiGLU layer of 7,168 by
// 28,672 against its mixture of 1 to 512 experts, 8 active per token, each expert
// shrunk to keep the total (where the router leaves room).
nlohmann::json moe_panel() {
  const MoeShape dense{7168, 28672, "swiglu", 1, 8, "bf16", true};
  const double dense_params = static_cast<double>(product({3, dense.emb_dim, dense.hidden_dim}));
  std::vector<double> x, active, total;
  for (const int64_t experts : {1, 2, 4, 8, 16, 32, 64, 128, 192, 256, 384, 512}) {
    const int64_t router = dense.emb_dim * experts;
    const int64_t hidden = static_cast<double>(router) < dense_params
                               ? static_cast<int64_t>(std::nearbyint((dense_params - static_cast<double>(router)) /
                                                                     static_cast<double>(experts * 3 * dense.emb_dim)))
                               : dense.hidden_dim;
    const int64_t per_expert = 3 * dense.emb_dim * hidden;
    x.push_back(static_cast<double>(experts));
    active.push_back(static_cast<double>(router + dense.top_k * per_expert));
    total.push_back(static_cast<double>(experts * per_expert + router));
  }
  return {{"title", "Active vs Total Parameters per Token\n(emb_dim=7168, hidden_dim=28672, ffn=swiglu, top_k=8)"},
          {"xlabel", "Number of experts (top_k = 8)"},
          {"ylabel", "Parameters"},
          {"xlog", false},
          {"ylog", true},
          {"series", {series("MoE active per token", x, active), series("MoE total parameters", x, total, "s", "--")}},
          {"hlines", {{{"y", dense_params}, {"label", "FFN dense (active = total)"}}}},
          {"grid", false}};
}

// plot_memory_estimates_gated_deltanet.py with its README's flags: 16 heads of 2,048
// dimensions over 48 layers in bfloat16, from 128 tokens to 131,072 in steps of 100.
// A Gated DeltaNet layer holds one head_dim x head_dim state per head whatever the
// context; the 3:1 mix keeps full attention's growing cache in a quarter of the layers.
nlohmann::json deltanet_panel() {
  const int64_t heads = 16, head_dim = 2048 / heads, layers = 48, bytes = 2;
  const auto mha = [&](int64_t length, double n_layers) {
    return static_cast<double>(length * heads * head_dim * 2 * bytes) * n_layers;
  };
  const double state = static_cast<double>(heads * head_dim * head_dim * bytes);
  std::vector<double> x, full, deltanet, mixed;
  for (int64_t length = 128; length <= 131072; length += 100) {
    x.push_back(static_cast<double>(length));
    full.push_back(mha(length, layers) / 1e9);
    deltanet.push_back(state * layers / 1e9);
    mixed.push_back((mha(length, layers / 4.0) + state * (layers - layers / 4.0)) / 1e9);
  }
  return {{"title", "Memory vs. Context Length: MHA vs. DeltaNet (3:1 mix)\n"
                    "(n_heads=16, emb_dim=2048, n_layers=48, batch=1, dtype=bf16)"},
          {"xlabel", "Context length (number of tokens)"},
          {"ylabel", "KV cache size (GB)"},
          {"xlog", false},
          {"ylog", false},
          {"series",
           {series("Full Attention (MHA) KV cache", x, full, ""), series("All Gated DeltaNet (no conv)", x, deltanet, ""),
            series("3:1 layer ratio (3 DeltaNet : 1 Full Attention)", x, mixed, "")}}};
}

}  // namespace

nlohmann::json memory_plot_panel(std::string_view name) {
  if (name == "gqa") return gqa_panel();
  if (name == "mla") return mla_panel();
  if (name == "swa") return swa_panel();
  if (name == "moe") return moe_panel();
  if (name == "deltanet") return deltanet_panel();
  throw Error(fmt::format("no memory plot named '{}'; expected gqa, mla, swa, moe or deltanet", name));
}

int64_t estimator_dtype_bytes(std::string_view dtype) {
  static constexpr std::array<std::pair<std::string_view, int64_t>, 5> kBytes{
      {{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}}};
  for (const auto& [name, bytes] : kBytes) {
    if (name == dtype) return bytes;
  }
  throw Error(fmt::format("--dtype must be fp32, bf16, fp16, fp8 or int8, got '{}'", dtype));
}

std::string gqa_memory_table(const KvCacheShape& shape) {
  std::string out = config_block(shape_entries(shape), 17, shape);
  const int64_t mha = kv_bytes(shape, shape.context_length, shape.n_heads, shape.n_layers);
  const int64_t gqa = kv_bytes(shape, shape.context_length, kv_heads_gqa(shape), shape.n_layers);
  out += "\n==== KV-cache totals across all layers ====\n";
  out += fmt::format("MHA total KV cache  : {}\nGQA total KV cache  : {}\n", convert_bytes(mha), convert_bytes(gqa));
  return out + ratio_lines("GQA", mha, gqa);
}

std::string mla_memory_table(const KvCacheShape& shape, int64_t latent_dim) {
  auto cfg = shape_entries(shape);
  cfg.emplace_back("latent_dim", latent_dim);
  std::string out = config_block(cfg, 17, shape);
  const int64_t mha = kv_bytes(shape, shape.context_length, shape.n_heads, shape.n_layers);
  const int64_t gqa = kv_bytes(shape, shape.context_length, kv_heads_gqa(shape), shape.n_layers);
  // calc_mla_bytes_total: one latent vector per position and layer.
  const int64_t mla = product({shape.batch_size, shape.context_length, shape.n_layers, latent_dim,
                               estimator_dtype_bytes(shape.dtype)});
  out += "\n==== KV-cache totals across all layers ====\n";
  out += fmt::format("MHA total KV cache  : {}\nGQA total KV cache  : {}\nMLA total KV cache  : {}\n", convert_bytes(mha),
                     convert_bytes(gqa), convert_bytes(mla));
  return out + ratio_lines("GQA", mha, gqa) + ratio_lines("MLA", mha, mla);
}

std::string swa_memory_table(const KvCacheShape& shape, const SlidingWindowLayout& layout) {
  auto cfg = shape_entries(shape);
  cfg.insert(cfg.begin() + 1, {"sliding_window_size", layout.sliding_window_size});
  std::string out = config_block(cfg, 23, shape);

  // distribute_layers: a sliding-window layers, then b full ones, block after block;
  // a last partial block begins with its sliding-window layers.
  const auto [a, b] = parse_ratio(layout.swa_ratio);
  const int64_t block = a + b, blocks = shape.n_layers / block, rest = shape.n_layers % block;
  const int64_t swa_layers = blocks * a + std::min(a, rest);
  const int64_t full_layers = blocks * b + std::max<int64_t>(0, rest - a);
  const int64_t window = std::min(shape.context_length, layout.sliding_window_size);
  const auto mixed = [&](int64_t kv_heads) {
    return sum(kv_bytes(shape, window, kv_heads, swa_layers), kv_bytes(shape, shape.context_length, kv_heads, full_layers));
  };
  out += fmt::format("{:<23}: {}\n", "Effective SWA window W", window);
  out += fmt::format("Layer ratio (SWA:Full) : {} -> {} SWA, {} Full\n", layout.swa_ratio, swa_layers, full_layers);
  out += "\n==== KV-cache totals across all layers ====\n";
  out += fmt::format("MHA KV total           : {}\n",
                     convert_bytes(kv_bytes(shape, shape.context_length, shape.n_heads, shape.n_layers)));
  out += fmt::format("GQA KV total           : {}\n",
                     convert_bytes(kv_bytes(shape, shape.context_length, kv_heads_gqa(shape), shape.n_layers)));
  out += fmt::format("MHA + SWA (ratio {})  : {}\n", layout.swa_ratio, convert_bytes(mixed(shape.n_heads)));
  out += fmt::format("GQA + SWA (ratio {})  : {}\n\n", layout.swa_ratio, convert_bytes(mixed(kv_heads_gqa(shape))));
  return out;
}

std::string moe_memory_table(const MoeShape& shape) {
  const int64_t matrices = ffn_matrices(shape.ffn_type);
  const int64_t bytes = estimator_dtype_bytes(shape.dtype);
  const int64_t dense = product({matrices, shape.emb_dim, shape.hidden_dim});
  const int64_t router = product({shape.emb_dim, shape.num_experts});
  int64_t moe_hidden_dim = shape.hidden_dim;
  if (shape.match_dense) {
    const int64_t num = dense - router, den = product({shape.num_experts, matrices, shape.emb_dim});
    if (num <= 0) {
      throw Error(fmt::format("the dense layer ({} parameters) is too small for --num-experts {}: its router alone "
                              "holds {}",
                              thousands(dense), shape.num_experts, thousands(router)));
    }
    // int(round(num / float(den))): Python rounds halves to even, as nearbyint does.
    moe_hidden_dim = static_cast<int64_t>(std::nearbyint(static_cast<double>(num) / static_cast<double>(den)));
  }
  const int64_t per_expert = product({matrices, shape.emb_dim, moe_hidden_dim});
  const int64_t total = sum(product({shape.num_experts, per_expert}), router);
  const int64_t active = sum(router, product({shape.top_k, per_expert}));

  std::string out = "==== Config ====\n";
  for (const auto& [key, value] :
       std::initializer_list<std::pair<const char*, std::string>>{{"emb_dim", std::to_string(shape.emb_dim)},
                                                                  {"hidden_dim", std::to_string(shape.hidden_dim)},
                                                                  {"ffn_type", shape.ffn_type},
                                                                  {"num_experts", std::to_string(shape.num_experts)},
                                                                  {"top_k", std::to_string(shape.top_k)}}) {
    out += fmt::format("{:<23}: {}\n", key, value);
  }
  out += fmt::format("{:<23}: {} ({} Bytes/elem)\n", "dtype", shape.dtype, bytes);
  out += fmt::format("{:<23}: {}\n\n==== Model weights (parameters) ====\n", "match_dense",
                     shape.match_dense ? "True" : "False");
  for (const auto& [what, count] : std::initializer_list<std::pair<const char*, int64_t>>{
           {"Dense FFN params", dense}, {"Per-expert params", per_expert}, {"Router params", router},
           {"MoE TOTAL params", total}, {"MoE ACTIVE/Token", active}}) {
    out += fmt::format("{:<23}: {} ({})\n", what, thousands(count), convert_bytes(product({count, bytes})));
  }
  return out + fmt::format("{:<23}: {}\n\n", "moe_hidden_dim", moe_hidden_dim);
}

}  // namespace llm
