// The multi-head lesson's interactive demo: what each head of a GPT attends to. The
// prompt runs through the model once, every block's attention recording its weights
// (after the softmax, before dropout, in eval mode); each head is summarized, and
// --png draws a grid of heatmaps, --html writes a page to explore them offline.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <vector>
#include <filesystem>

#include "attention_heads_page.h"  // kAttentionHeadsPage, generated from attention-heads.html
#include "attention_maps.h"        // the page's data
#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/reference/recording.h"
#include "llm/util/files.h"
#include "llm/util/process.h"
#include "llm/util/show.h"

namespace {

// The most tokens --png and --html draw: a head is t x t cells, and beyond this a page
// or a picture of every head grows too large to look at.
constexpr size_t kMaxDrawnTokens = 256;

// The-verdict's first sentence.
constexpr const char* kVerdict = "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough";

std::string link_text(const llm::AttentionMaps& maps, const llm::HeadSummary::Link& link) {
  return fmt::format("{} -> {} {:.2f}", llm::python_repr(maps.tokens[link.from]), llm::python_repr(maps.tokens[link.to]),
                     link.weight);
}

// One line per head: its summary and its strongest link.
void print_layer(const llm::AttentionMaps& maps, int64_t layer) {
  fmt::print("Layer {}\n  head  entropy  back  prev  first  strongest link\n", layer);
  for (int64_t h = 0; h < maps.heads(); ++h) {
    const auto s = llm::summarize_head(maps.weights[layer][h], 1);
    fmt::print("  {:>4}  {:>7.2f}  {:>4.1f}  {:>4.2f}  {:>5.2f}  {}{}\n", h, s.entropy, s.mean_distance,
               s.previous_token, s.first_token, s.strongest.empty() ? "-" : link_text(maps, s.strongest[0]),
               maps.kv_groups == maps.heads() ? "" : fmt::format("  (kv group {})", maps.kv_group(h)));
  }
}

// The head that stands out most in each summary, over all layers, or over --layer's
// heads when given (layer >= 0).
void print_standouts(const llm::AttentionMaps& maps, int64_t layer) {
  struct Standout {
    const char* what;
    const char* unit;
    double (*score)(const llm::HeadSummary&);  // the larger, the more it stands out
  };
  const Standout standouts[] = {
      {"previous token", "weight", [](const llm::HeadSummary& s) { return s.previous_token; }},
      {"first token", "weight", [](const llm::HeadSummary& s) { return s.first_token; }},
      {"farthest back", "tokens back", [](const llm::HeadSummary& s) { return s.mean_distance; }},
      {"most focused", "bits of entropy", [](const llm::HeadSummary& s) { return -s.entropy; }}};
  struct Best {
    int64_t layer = 0, head = 0;
    double score = -INFINITY;
  };
  std::vector<Best> best(std::size(standouts));
  for (int64_t l = 0; l < maps.layers(); ++l) {
    if (layer >= 0 && l != layer) continue;
    for (int64_t h = 0; h < maps.heads(); ++h) {
      const auto summary = llm::summarize_head(maps.weights[l][h], 0);  // once per head, for every standout
      for (size_t k = 0; k < best.size(); ++k) {
        const double score = standouts[k].score(summary);
        if (score > best[k].score) best[k] = {l, h, score};
      }
    }
  }
  fmt::print("Standout heads{}:\n", layer >= 0 ? fmt::format(" of layer {}", layer) : "");
  for (size_t k = 0; k < best.size(); ++k) {
    fmt::print("  {:<15} layer {}, head {}  ({:.2f} {})\n", standouts[k].what, best[k].layer, best[k].head,
               std::abs(best[k].score), standouts[k].unit);
  }
}

// --png: scripts/plot_attention.py draws the maps' JSON, and the picture replaces
// `out` whole (run_script_into).
void draw_png(const std::string& json, const std::string& layer, const std::string& out) {
  const llm::TempFolder folder("attention-heads");
  llm::write_file_atomic(folder / "maps.json", json);
  if (const auto why = llm::run_script_into("plot_attention.py", {(folder / "maps.json").string(), layer}, out);
      !why.empty()) {
    throw llm::Error(fmt::format("--png '{}': not drawn: {}", out, why));
  }
  fmt::print("Heatmaps: {}\n", out);
}

// The summary of every head (of --layer's alone when given), and the heads that
// stand out.
void print_summaries(const llm::AttentionMaps& maps, int64_t layer) {
  fmt::print("Weights: {}\n", maps.model);
  fmt::print("Tokens ({}): {}\n", maps.tokens.size(), llm::python_list(maps.tokens));
  fmt::print("Attention weights: {} layers x {} heads{}, [{} x {}] each\n", maps.layers(), maps.heads(),
             maps.kv_groups == maps.heads()
                 ? ""
                 : fmt::format(" sharing {} key/value groups ({} query heads each)", maps.kv_groups,
                               maps.heads() / maps.kv_groups),
             maps.tokens.size(), maps.tokens.size());
  fmt::print("entropy: bits per row; back: tokens back on average; prev, first: weight on the previous and the "
             "first token\n");
  for (int64_t l = 0; l < maps.layers(); ++l) {
    if (layer < 0 || l == layer) print_layer(maps, l);
  }
  print_standouts(maps, layer);
}

// The one-file page: the maps' JSON in place of the page's placeholder.
void write_page(const std::string& json, const std::string& out) {
  std::string page(kAttentionHeadsPage);
  const std::string marker = "/*ATTENTION_MAPS*/null";
  page.replace(page.find(marker), marker.size(), json);
  llm::write_file_atomic(out, page);
  fmt::print("Page: {} (open it in a browser; #layer=L&head=H selects a head)\n", out);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-07-attention-heads",
                                   "What each attention head looks at: summaries, heatmaps and an interactive page");
  llm::add_trained_model_flags(options);
  llm::add_weights_dtype_flag(options);
  options.add_options("Explorer")("prompt", "The text to run through the model",
                                  cxxopts::value<std::string>()->default_value(kVerdict), "TEXT")(
      "layer", "The layer to list and draw, from 0 (default: all of them)", cxxopts::value<int64_t>(), "N")(
      "png", "Draw a grid of heatmaps, one per head, into FILE (python3 with matplotlib)",
      cxxopts::value<std::string>(), "FILE")(
      "html", "Write the interactive page into FILE: one file that opens offline", cxxopts::value<std::string>(),
      "FILE");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const bool one_layer = args.count("layer") != 0;
    const int64_t layer = one_layer ? args["layer"].as<int64_t>() : -1;
    if (one_layer && layer < 0) throw llm::cli::BadFlagValue(fmt::format("--layer must be 0 or more, got {}", layer));
    auto trained = llm::trained_model_from_flags(args);
    auto& model = trained.model;
    const auto& tokenizer = trained.tokenizer;
    const auto prompt = args["prompt"].as<std::string>();
    const auto tokens = tokenizer.encode(prompt, {"<|endoftext|>"}).size();
    if ((args.count("html") != 0 || args.count("png") != 0) && tokens > kMaxDrawnTokens) {
      throw llm::Error(fmt::format("--png and --html draw at most {} tokens, and the prompt has {}: give a shorter "
                                   "--prompt (without them, the summaries cover any length)",
                                   kMaxDrawnTokens, tokens));
    }
    if (layer >= model->shape().n_layers) {
      throw llm::cli::BadFlagValue(
          fmt::format("--layer must be below the model's {} layers, got {}", model->shape().n_layers, layer));
    }
    const auto maps = llm::record_attention_maps(*model, tokenizer, prompt, llm::model_source(args));
    print_summaries(maps, layer);
    const auto json = llm::attention_maps_json(maps);
    if (args.count("html") != 0) write_page(json, args["html"].as<std::string>());
    if (args.count("png") != 0) draw_png(json, one_layer ? std::to_string(layer) : "all", args["png"].as<std::string>());
    if (args.count("save-outputs") != 0) {
      auto archive = llm::model_header("attention_heads", llm::cli::seed(args), *model);
      archive.insert(archive.end(),
                     {{"ids", torch::tensor(maps.ids).unsqueeze(0)}, {"attention_weights", maps.weights}});
      llm::record_weights(archive, *model);
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
