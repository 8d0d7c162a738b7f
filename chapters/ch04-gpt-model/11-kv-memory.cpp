// Chapter 4's bonus memory estimators (ch04/04_gqa, 05_mla, 06_swa and 07_moe): what
// a KV cache costs with grouped-query attention, multi-head latent attention and
// sliding windows, and what a mixture of experts holds and uses per token. With no
// flags it prints the four tables of the course's READMEs; --estimator picks one, and
// each flag (the course's, with dashes) replaces the README's value in every table
// that takes it. Each table is preceded by the course's command that prints the same.
// --png draws the course's plots: the four estimators' and Gated DeltaNet's
// (ch04/08_deltanet); --save-outputs writes their lines.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/kv_memory.h"
#include "llm/util/files.h"
#include "llm/util/process.h"

namespace {

// The estimators: each one's script in the course and the flags it takes.
struct Estimator {
  std::string_view name, script;
  std::vector<std::string_view> flags;
};

const std::array<Estimator, 4> kEstimators{{
    {"gqa", "ch04/04_gqa/memory_estimator_gqa.py",
     {"context-length", "emb-dim", "n-heads", "n-layers", "n-kv-groups", "batch-size", "dtype"}},
    {"mla", "ch04/05_mla/memory_estimator_mla.py",
     {"context-length", "emb-dim", "n-heads", "n-layers", "n-kv-groups", "latent-dim", "batch-size", "dtype"}},
    {"swa", "ch04/06_swa/memory_estimator_swa.py",
     {"context-length", "sliding-window-size", "emb-dim", "n-heads", "n-layers", "n-kv-groups", "batch-size",
      "dtype", "swa-ratio"}},
    {"moe", "ch04/07_moe/memory_estimator_moe.py",
     {"emb-dim", "hidden-dim", "ffn-type", "num-experts", "top-k", "dtype", "match-dense"}},
}};

constexpr std::array<const char*, 10> kWholeNumberFlags{"context-length", "emb-dim",    "n-heads",
                                                        "n-layers",       "n-kv-groups", "batch-size",
                                                        "latent-dim",     "sliding-window-size", "hidden-dim",
                                                        "num-experts"};

// A flag's value when it was given, else the README's for this estimator.
template <typename T>
T flag_or(const cxxopts::ParseResult& args, const char* flag, T readme) {
  return args.count(flag) != 0 ? args[flag].as<T>() : readme;
}

llm::KvCacheShape kv_shape(const cxxopts::ParseResult& args, std::string_view estimator) {
  const bool mla = estimator == "mla";
  return {flag_or<int64_t>(args, "context-length", mla ? 8192 : 32768),
          flag_or<int64_t>(args, "emb-dim", mla ? 2048 : 4096),
          flag_or<int64_t>(args, "n-heads", mla ? 24 : 32),
          flag_or<int64_t>(args, "n-layers", mla ? 48 : 32),
          flag_or<int64_t>(args, "n-kv-groups", 4),
          flag_or<int64_t>(args, "batch-size", 1),
          flag_or<std::string>(args, "dtype", "bf16")};
}

// The course's command for the same table, and the table.
std::pair<std::string, std::string> estimate(const cxxopts::ParseResult& args, const Estimator& estimator) {
  if (estimator.name == "moe") {
    const llm::MoeShape moe{flag_or<int64_t>(args, "emb-dim", 7168),       flag_or<int64_t>(args, "hidden-dim", 14336),
                            flag_or<std::string>(args, "ffn-type", "swiglu"), flag_or<int64_t>(args, "num-experts", 8),
                            flag_or<int64_t>(args, "top-k", 2),            flag_or<std::string>(args, "dtype", "bf16"),
                            flag_or<bool>(args, "match-dense", true)};
    if (moe.top_k > moe.num_experts) {
      throw llm::cli::BadFlagValue(fmt::format("--top-k must be at most --num-experts ({}), got {}", moe.num_experts,
                                               moe.top_k));
    }
    return {fmt::format("--emb_dim {} --hidden_dim {} --ffn_type {} --num_experts {} --top_k {} --dtype {}{}",
                        moe.emb_dim, moe.hidden_dim, moe.ffn_type, moe.num_experts, moe.top_k, moe.dtype,
                        moe.match_dense ? " --match_dense" : ""),
            llm::moe_memory_table(moe)};
  }
  const auto shape = kv_shape(args, estimator.name);
  const auto common = fmt::format("--context_length {} --emb_dim {} --n_heads {} --n_layers {} --n_kv_groups {}",
                                  shape.context_length, shape.emb_dim, shape.n_heads, shape.n_layers, shape.n_kv_groups);
  const auto tail = fmt::format("--batch_size {} --dtype {}", shape.batch_size, shape.dtype);
  if (estimator.name == "mla") {
    const auto latent_dim = flag_or<int64_t>(args, "latent-dim", 1024);
    return {fmt::format("{} --latent_dim {} {}", common, latent_dim, tail), llm::mla_memory_table(shape, latent_dim)};
  }
  if (estimator.name == "swa") {
    const llm::SlidingWindowLayout layout{flag_or<int64_t>(args, "sliding-window-size", 1024),
                                          flag_or<std::string>(args, "swa-ratio", "5:1")};
    return {fmt::format("{} --sliding_window_size {} {} --swa_ratio {}", common, layout.sliding_window_size, tail,
                        layout.swa_ratio),
            llm::swa_memory_table(shape, layout)};
  }
  return {fmt::format("{} {}", common, tail), llm::gqa_memory_table(shape)};
}

// The estimators --estimator picks; a flag none of them takes is refused, since it
// would change nothing.
std::vector<const Estimator*> picked(const cxxopts::ParseResult& args) {
  const auto name = llm::cli::choice_flag(args, "estimator", {"all", "gqa", "mla", "swa", "moe"});
  std::vector<const Estimator*> out;
  for (const auto& e : kEstimators) {
    if (name == "all" || e.name == name) out.push_back(&e);
  }
  for (const auto& all : kEstimators) {
    for (const auto flag : all.flags) {
      if (args.count(std::string(flag)) == 0) continue;
      const bool taken = std::any_of(out.begin(), out.end(), [&](const Estimator* e) {
        return std::find(e->flags.begin(), e->flags.end(), flag) != e->flags.end();
      });
      if (!taken) throw llm::cli::BadFlagValue(fmt::format("--{} is not a setting of the {} estimator", flag, name));
    }
  }
  return out;
}

// The course's plots of the picked estimators; with all of them, ch04/08_deltanet's
// plot of Gated DeltaNet too (a plot with no estimator table).
std::vector<nlohmann::json> plots(const cxxopts::ParseResult& args, const std::vector<const Estimator*>& estimators) {
  std::vector<nlohmann::json> panels;
  for (const auto* e : estimators) panels.push_back(llm::memory_plot_panel(e->name));
  if (args["estimator"].as<std::string>() == "all") panels.push_back(llm::memory_plot_panel("deltanet"));
  return panels;
}

// --png: the plots, one panel each, drawn by scripts/plot_series.py; the picture
// replaces `out` whole.
void draw_png(const std::vector<nlohmann::json>& panels, const std::string& out) {
  const llm::TempFolder folder("kv-memory");
  llm::write_file_atomic(folder / "panels.json", nlohmann::json(panels).dump());
  if (const auto why = llm::run_script_into("plot_series.py", {(folder / "panels.json").string()}, out); !why.empty()) {
    throw llm::Error(fmt::format("--png '{}': not drawn: {}", out, why));
  }
  fmt::print("Plot: {}\n", out);
}

// --save-outputs: each plotted line as float64 tensors "PANEL.N.x" and "PANEL.N.y",
// N its place in the panel's legend, PANEL the plot's name (gqa, ..., deltanet).
void save_plotted(const std::vector<nlohmann::json>& panels, const std::vector<const Estimator*>& estimators,
                  const std::string& path) {
  llm::NamedTensors tensors;
  for (size_t p = 0; p < panels.size(); ++p) {
    const std::string name(p < estimators.size() ? estimators[p]->name : "deltanet");
    const auto& lines = panels[p]["series"];
    for (size_t n = 0; n < lines.size(); ++n) {
      for (const char* axis : {"x", "y"}) {
        const auto values = lines[n][axis].get<std::vector<double>>();
        tensors.emplace_back(fmt::format("{}.{}.{}", name, n, axis),
                             torch::tensor(values, torch::dtype(torch::kFloat64)));
      }
    }
  }
  llm::save_tensors(path, tensors);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch04-11-kv-memory",
                                   "The course's KV-cache and MoE memory estimators (GQA, MLA, SWA, MoE), and their plots",
                                   llm::cli::kSaveOutputsFlag);
  const auto whole = [] { return cxxopts::value<int64_t>(); };
  options.add_options("Estimator")("estimator", "all, gqa, mla, swa or moe",
                                    cxxopts::value<std::string>()->default_value("all"), "NAME")(
      "png", "Draw the course's plots of the picked estimators into this PNG (with all, Gated DeltaNet's too)", cxxopts::value<std::string>(), "FILE");
  options.add_options("Setting")(
      "context-length", "Tokens in the cache (32768; MLA's 8192)", whole(), "N")(
      "emb-dim", "Embedding dimension (4096; MLA's 2048, MoE's 7168)", whole(), "N")(
      "n-heads", "Attention heads (32; MLA's 24)", whole(), "N")("n-layers", "Layers (32; MLA's 48)", whole(), "N")(
      "n-kv-groups", "Query heads per key/value head, dividing --n-heads (4)", whole(), "N")(
      "batch-size", "Sequences in the cache (1)", whole(), "N")(
      "dtype", "Bytes per element: fp32, bf16, fp16, fp8 or int8 (bf16)", cxxopts::value<std::string>(), "NAME")(
      "latent-dim", "MLA: the latent vector cached per token and layer (1024)", whole(), "N")(
      "sliding-window-size", "SWA: the window W of a sliding-window layer (1024)", whole(), "N")(
      "swa-ratio", "SWA: sliding-window to full layers, a:b (5:1)", cxxopts::value<std::string>(), "A:B")(
      "hidden-dim", "MoE: the dense feed-forward's hidden size (14336)", whole(), "N")(
      "ffn-type", "MoE: gelu (2 matrices) or swiglu (3) (swiglu)", cxxopts::value<std::string>(), "NAME")(
      "num-experts", "MoE: experts (8)", whole(), "N")("top-k", "MoE: experts active per token (2)", whole(), "N")(
      "match-dense", "MoE: shrink each expert to keep the dense layer's parameters (true; --match-dense=false)",
      cxxopts::value<bool>()->implicit_value("true"), "BOOL");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    for (const char* flag : kWholeNumberFlags) {
      if (args.count(flag) != 0) llm::cli::positive_flag(args, flag);
    }
    if (args.count("top-k") != 0) llm::cli::positive_flag(args, "top-k");
    const auto estimators = picked(args);
    for (size_t i = 0; i < estimators.size(); ++i) {
      std::pair<std::string, std::string> table;
      try {
        table = estimate(args, *estimators[i]);
      } catch (const llm::cli::BadFlagValue&) {
        throw;
      } catch (const llm::Error& e) {
        throw llm::cli::BadFlagValue(e.what());  // settings that cannot be estimated are bad flag values
      }
      fmt::print("{}$ python {} {}\n{}", i == 0 ? "" : "\n", estimators[i]->script, table.first, table.second);
    }
    const auto panels = plots(args, estimators);
    if (args.count("save-outputs") != 0) save_plotted(panels, estimators, args["save-outputs"].as<std::string>());
    if (args.count("png") != 0) draw_png(panels, args["png"].as<std::string>());
  });
}
