#include "attention_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/utf8.h"

namespace llm {

AttentionMaps record_attention_maps(LanguageModelImpl& model, const BpeTokenizer& tokenizer, const std::string& prompt,
                                    std::string model_label) {
  AttentionMaps maps;
  maps.ids = tokenizer.encode(prompt, {"<|endoftext|>"});
  if (maps.ids.empty()) throw Error("the prompt is empty: give one with --prompt");
  const auto shape = model.shape();
  const int64_t context = shape.context_length;
  if (static_cast<int64_t>(maps.ids.size()) > context) {
    throw Error(fmt::format("the prompt has {} tokens, more than the model's context of {}", maps.ids.size(), context));
  }
  for (const auto id : maps.ids) maps.tokens.push_back(utf8_replace_invalid(tokenizer.token_bytes(id)));
  maps.weights = model.attention_weights(torch::tensor(maps.ids, torch::kLong).unsqueeze(0));
  // A NaN or inf weight makes NaN maps, which would summarize as "most focused".
  if (const auto bad = torch::nonzero(~torch::isfinite(maps.weights)); bad.size(0) > 0) {
    throw Error(fmt::format("{}: the attention weights of layer {}, head {} are not finite; the model's weights hold "
                            "NaN or inf",
                            model_label, bad[0][0].item<int64_t>(), bad[0][1].item<int64_t>()));
  }
  maps.kv_groups = shape.kv_heads;
  maps.model = std::move(model_label);
  return maps;
}

HeadSummary summarize_head(const torch::Tensor& weights, int64_t links) {
  const auto w = weights.to(torch::kDouble).contiguous();
  const int64_t t = w.size(0);
  const auto* p = w.data_ptr<double>();
  HeadSummary s;
  std::vector<HeadSummary::Link> all;
  for (int64_t i = 1; i < t; ++i) {
    const double* row = p + i * t;
    for (int64_t j = 0; j <= i; ++j) {
      if (row[j] > 0) s.entropy -= row[j] * std::log2(row[j]);
      s.mean_distance += row[j] * static_cast<double>(i - j);
      if (j < i) all.push_back({i, j, row[j]});
    }
    s.previous_token += row[i - 1];
    s.first_token += row[0];
  }
  if (t > 1) {
    const auto rows = static_cast<double>(t - 1);
    s.entropy /= rows;
    s.mean_distance /= rows;
    s.previous_token /= rows;
    s.first_token /= rows;
  }
  const auto n = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(links, 0)), all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const auto& a, const auto& b) { return a.weight > b.weight; });
  s.strongest.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  return s;
}

namespace {

// Weights with 4 decimals: enough to draw, a quarter of the page's size.
double rounded(double x) { return std::round(x * 1e4) / 1e4; }

nlohmann::json summary_json(const HeadSummary& s) {
  auto links = nlohmann::json::array();
  for (const auto& link : s.strongest) links.push_back({link.from, link.to, rounded(link.weight)});
  return {{"entropy", rounded(s.entropy)},
          {"mean_distance", rounded(s.mean_distance)},
          {"previous_token", rounded(s.previous_token)},
          {"first_token", rounded(s.first_token)},
          {"strongest", links}};
}

}  // namespace

std::string attention_maps_json(const AttentionMaps& maps) {
  const auto w = maps.weights.to(torch::kDouble).contiguous();
  const int64_t t = w.size(2);
  const auto* p = w.data_ptr<double>();
  auto layers = nlohmann::json::array();
  for (int64_t l = 0; l < maps.layers(); ++l) {
    auto heads = nlohmann::json::array();
    for (int64_t h = 0; h < maps.heads(); ++h) {
      auto rows = nlohmann::json::array();
      for (int64_t i = 0; i < t; ++i) {
        const double* row = p + ((l * maps.heads() + h) * t + i) * t;
        auto cells = nlohmann::json::array();
        for (int64_t j = 0; j <= i; ++j) cells.push_back(rounded(row[j]));  // the rest are masked: 0
        rows.push_back(std::move(cells));
      }
      heads.push_back({{"weights", std::move(rows)}, {"summary", summary_json(summarize_head(maps.weights[l][h]))}});
    }
    layers.push_back(std::move(heads));
  }
  auto kv_group = nlohmann::json::array();
  for (int64_t h = 0; h < maps.heads(); ++h) kv_group.push_back(maps.kv_group(h));
  const nlohmann::json json = {{"model", maps.model},     {"tokens", maps.tokens},   {"n_layers", maps.layers()},
                               {"n_heads", maps.heads()}, {"kv_groups", maps.kv_groups}, {"kv_group", kv_group},
                               {"layers", std::move(layers)}};
  // The tokens are UTF-8 already (record_attention_maps); the handler keeps any other
  // caller's bytes from ending the dump.
  const auto text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '<': safe += "\\u003c"; break;
      case '>': safe += "\\u003e"; break;
      case '&': safe += "\\u0026"; break;
      default: safe += c;
    }
  }
  return safe;
}

}  // namespace llm
