// The attention-head explorer's page data (chapters/ch03-attention/attention_maps.h):
// the head summaries it prints and the JSON its page reads.
#include <cmath>
#include <nlohmann/json.hpp>

#include "attention_maps.h"
#include "helpers.h"

TEST_CASE("head summaries: a previous-token head, a first-token head, the strongest links") {
  // Row i looks at token i - 1 only (row 0 at itself).
  auto previous = torch::zeros({4, 4});
  previous[0][0] = 1;
  for (int64_t i = 1; i < 4; ++i) previous[i][i - 1] = 1;
  const auto p = llm::summarize_head(previous, 2);
  CHECK(p.previous_token == 1.0);
  CHECK(p.first_token == Approx(1.0 / 3));
  CHECK(p.entropy == 0.0);
  CHECK(p.mean_distance == 1.0);
  REQUIRE(p.strongest.size() == 2);
  CHECK(p.strongest[0].weight == 1.0);
  CHECK(p.strongest[0].to == p.strongest[0].from - 1);

  // Every row spread evenly over what it can see.
  auto even = torch::zeros({3, 3});
  for (int64_t i = 0; i < 3; ++i) even[i].slice(0, 0, i + 1).fill_(1.0 / static_cast<double>(i + 1));
  const auto e = llm::summarize_head(even);
  CHECK(e.entropy == Approx((1.0 + std::log2(3.0)) / 2));  // rows 1 and 2: 1 bit and log2(3) bits
  CHECK(e.mean_distance == Approx((0.5 + 1.0) / 2));
  CHECK(e.strongest.size() == 3);  // (1,0) 0.5, then (2,0) and (2,1) a third each
  CHECK(e.strongest[0].weight == Approx(0.5));

  const auto one = llm::summarize_head(torch::ones({1, 1}));  // one token has no choice
  CHECK(one.entropy == 0.0);
  CHECK(one.strongest.empty());
}

TEST_CASE("attention maps JSON: safe inside an HTML script, tokens as given") {
  llm::AttentionMaps maps;
  maps.tokens = {"</script>", " <b>&", "\"x\""};
  maps.weights = torch::tril(torch::ones({1, 2, 3, 3}));
  maps.weights /= maps.weights.sum(-1, true);
  maps.kv_groups = 1;
  maps.model = "untrained <test>";
  const auto json = llm::attention_maps_json(maps);
  CHECK(json.find('<') == std::string::npos);
  CHECK(json.find('>') == std::string::npos);
  CHECK(json.find('&') == std::string::npos);
  const auto parsed = nlohmann::json::parse(json);
  CHECK(parsed["tokens"] == nlohmann::json(maps.tokens));
  CHECK(parsed["model"] == "untrained <test>");
  CHECK(parsed["kv_group"] == nlohmann::json({0, 0}));
  CHECK(parsed["layers"][0][1]["weights"] == nlohmann::json::parse("[[1.0],[0.5,0.5],[0.3333,0.3333,0.3333]]"));
  CHECK(parsed["layers"][0][0]["summary"]["previous_token"] == 0.4167);  // (0.5 + 0.3333) / 2
}
