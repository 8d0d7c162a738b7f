#include "helpers.h"
#include "llm/cli/attention_flags.h"
#include "llm/attention/causal_attention.h"
#include "llm/attention/multi_head_attention.h"
#include "llm/attention/self_attention.h"
#include "llm/attention/simplified.h"
#include "llm/io/state_dict.h"
#include "llm/util/error.h"
#include "llm/reference/recording.h"

using llm::AttentionOptions;
using llm::NamedTensors;

namespace {

NamedTensors golden(const std::string& name) { return llm::load_tensors(llm::test::golden("ch03-" + name + ".pt")); }

const torch::Tensor& get(const NamedTensors& g, const std::string& key) { return llm::find_tensor(g, key, "golden"); }

AttentionOptions options_of(const NamedTensors& g) {
  const auto i = [&](const char* key) { return get(g, std::string("config/") + key).item<int64_t>(); };
  // Only the grouped-query reference has key/value groups; the others have a head each.
  const bool grouped = llm::tensor_to_string(get(g, "kind")) == "grouped_query_attention";
  return AttentionOptions(i("d_in"), i("d_out"))
      .context_length(i("context_length"))
      .num_heads(i("num_heads"))
      .num_kv_groups(grouped ? i("num_kv_groups") : 0)
      .dropout(get(g, "config/dropout").item<double>())
      .qkv_bias(get(g, "config/qkv_bias").item<bool>());
}

// Replays the reference's sequence: seed, build, draw the input, forward (training
// mode, so dropout draws), draw grad_output, backward. Every step must match
// PyTorch: the weights and the drawn tensors exactly, the results within tolerance::kForward and kGradient.
template <typename Module>
void check_against_pytorch(const std::string& name) {
  const auto g = golden(name);
  torch::manual_seed(get(g, "seed").item<int64_t>());
  Module module(options_of(g));

  const auto params = llm::state_dict(*module);
  for (const auto& [key, tensor] : params) {
    INFO(name << ": same seed, same initial " << key);
    CHECK(torch::equal(tensor, get(g, key)));
  }
  const auto x = llm::attention_input(get(g, "input").sizes());
  REQUIRE(torch::equal(x, get(g, "input")));
  const auto out = module->forward(x);
  llm::test::check_close(out, get(g, "output"), name + " output", llm::test::tolerance::kForward);
  const auto grad_output = torch::randn(out.sizes());
  REQUIRE(torch::equal(grad_output, get(g, "grad_output")));
  out.backward(grad_output);
  llm::test::check_close(x.grad(), get(g, "grad/input"), name + " grad/input", llm::test::tolerance::kGradient);
  for (const auto& p : module->named_parameters()) {
    llm::test::check_close(p.value().grad(), get(g, "grad/" + p.key()), name + " grad/" + p.key(),
                           llm::test::tolerance::kGradient);
  }
}

}  // namespace

TEST_CASE("simplified self-attention gives the lesson's weights") {
  const auto result = llm::simplified_self_attention(llm::journey_inputs());
  llm::test::check_close(result.weights[1], torch::tensor({0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581}),
                         "weights of query 2", llm::test::tolerance::kPrinted);
  const auto g = golden("simplified");
  CHECK(torch::equal(llm::journey_inputs(), get(g, "input")));
  llm::test::check_close(result.scores, get(g, "scores"), "scores", llm::test::tolerance::kForward);
  llm::test::check_close(result.weights, get(g, "weights"), "weights", llm::test::tolerance::kForward);
  llm::test::check_close(result.context, get(g, "context"), "context", llm::test::tolerance::kForward);
}

TEST_CASE("SelfAttentionV1 matches PyTorch") { check_against_pytorch<llm::SelfAttentionV1>("self_attention_v1"); }
TEST_CASE("SelfAttentionV2 matches PyTorch") { check_against_pytorch<llm::SelfAttentionV2>("self_attention_v2"); }
TEST_CASE("CausalAttention matches PyTorch") { check_against_pytorch<llm::CausalAttention>("causal_attention"); }
TEST_CASE("CausalAttention with dropout draws what PyTorch draws") {
  check_against_pytorch<llm::CausalAttention>("causal_attention_dropout");
}
TEST_CASE("MultiAttentionStacking matches PyTorch") {
  check_against_pytorch<llm::MultiAttentionStacking>("multi_attention_stacking");
}
TEST_CASE("MultiHeadAttention matches PyTorch") {
  check_against_pytorch<llm::MultiHeadAttention>("multi_head_attention");
}
TEST_CASE("MultiHeadAttention with dropout draws what PyTorch draws") {
  check_against_pytorch<llm::MultiHeadAttention>("multi_head_attention_dropout");
}
TEST_CASE("GroupedQueryAttention matches PyTorch") {
  check_against_pytorch<llm::GroupedQueryAttention>("grouped_query_attention");
}
TEST_CASE("multi-query attention (one KV group) matches PyTorch") {
  check_against_pytorch<llm::GroupedQueryAttention>("grouped_query_attention_mqa");
}

TEST_CASE("the causal mask hides the future") {
  torch::manual_seed(1);
  llm::CausalAttention att(AttentionOptions(3, 2).context_length(6));
  att->forward(torch::rand({1, 6, 3}));
  CHECK_FALSE(att->recorded_weights.defined());  // not recorded unless asked
  att->record_weights = true;
  att->forward(torch::rand({1, 6, 3}));
  const auto w = att->recorded_weights[0];  // [6, 6]
  CHECK(torch::equal(w.triu(1), torch::zeros({6, 6})));
  llm::test::check_close(w.sum(-1), torch::ones(6), "rows sum to 1", llm::test::tolerance::kSameMath);
}

TEST_CASE("stacked heads and split weights do the same math") {
  // Two heads of width 4 side by side are one projection of width 8.
  const auto options = AttentionOptions(6, 4).context_length(8).num_heads(2);
  torch::manual_seed(3);
  llm::MultiAttentionStacking stacked(options);
  llm::MultiHeadAttention split(AttentionOptions(6, 8).context_length(8).num_heads(2));
  {
    torch::NoGradGuard no_grad;
    for (const char* w : {"W_query", "W_key", "W_value"}) {
      std::vector<torch::Tensor> rows;
      for (const auto& head : *stacked->heads) rows.push_back(head->named_parameters()[std::string(w) + ".weight"]);
      split->named_parameters()[std::string(w) + ".weight"].copy_(torch::cat(rows, 0));
    }
    split->out_proj->weight.copy_(torch::eye(8));
    split->out_proj->bias.zero_();
  }
  const auto x = torch::rand({3, 5, 6});
  llm::test::check_close(split->forward(x), stacked->forward(x), "split vs stacked", llm::test::tolerance::kSameMath);
}

TEST_CASE("grouped-query attention with one group per head is multi-head attention") {
  const auto options = AttentionOptions(8, 12).context_length(10).num_heads(4).num_kv_groups(4).qkv_bias(true);
  torch::manual_seed(7);
  llm::MultiHeadAttention mha(AttentionOptions(options).num_kv_groups(0));
  llm::GroupedQueryAttention gqa(options);
  // The course's layout: no out_proj bias, no mask buffer, the projections drawn in
  // the order W_key, W_value, W_query. With the same weights, the same function.
  CHECK(gqa->out_proj->bias.defined() == false);
  CHECK(llm::state_dict(*gqa).size() == llm::state_dict(*mha).size() - 2);
  NamedTensors weights;
  for (const auto& [key, tensor] : llm::state_dict(*mha)) {
    if (key != "mask" && key != "out_proj.bias") weights.emplace_back(key, tensor);
  }
  llm::load_state_dict(*gqa, weights, "mha");
  torch::NoGradGuard no_grad;
  mha->out_proj->bias.zero_();
  const auto x = torch::rand({2, 9, 8});
  CHECK(torch::allclose(gqa->forward(x), mha->forward(x), 1e-6, 1e-6));
}

TEST_CASE("grouped-query attention shrinks the key and value projections") {
  const auto options = AttentionOptions(768, 768).context_length(16).num_heads(12);
  llm::GroupedQueryAttention gqa(AttentionOptions(options).num_kv_groups(3));
  CHECK(gqa->W_key->weight.sizes() == torch::IntArrayRef{3 * 64, 768});
  CHECK(gqa->W_value->weight.sizes() == torch::IntArrayRef{3 * 64, 768});
  CHECK(gqa->forward(torch::rand({1, 5, 768})).sizes() == torch::IntArrayRef{1, 5, 768});
}

TEST_CASE("load_state_dict copies by name and names what does not fit") {
  const auto g = golden("multi_head_attention");
  torch::manual_seed(99);  // other weights than the golden's
  llm::MultiHeadAttention mha(options_of(g));
  NamedTensors params;
  for (const auto& [key, tensor] : llm::state_dict(*mha)) params.emplace_back(key, get(g, key));
  llm::load_state_dict(*mha, params, "golden");
  llm::test::check_close(mha->forward(get(g, "input")), get(g, "output"), "output after load", llm::test::tolerance::kForward);

  auto missing = params;
  missing.pop_back();
  CHECK_THROWS_WITH(llm::load_state_dict(*mha, missing, "m.pt"), Catch::Contains("state dict 'm.pt': missing key"));
  auto extra = params;
  extra.emplace_back("W_gate.weight", torch::zeros({1}));
  CHECK_THROWS_WITH(llm::load_state_dict(*mha, extra, "m.pt"), Catch::Contains("unexpected key 'W_gate.weight'"));
  auto misshaped = params;
  for (auto& [key, tensor] : misshaped) {
    if (key == "W_query.weight") tensor = torch::zeros({3, 3});
  }
  CHECK_THROWS_WITH(llm::load_state_dict(*mha, misshaped, "m.pt"),
                    Catch::Contains("'W_query.weight' has shape [3, 3], expected [12, 8]"));
}

TEST_CASE("impossible attention sizes are rejected") {
  CHECK_THROWS_WITH(llm::MultiHeadAttention(AttentionOptions(8, 10).num_heads(3)),
                    Catch::Contains("d_out (10) must be divisible by num_heads (3)"));
  CHECK_THROWS_WITH(llm::MultiHeadAttention(AttentionOptions(8, 12).num_heads(4).num_kv_groups(2)),
                    Catch::Contains("num_kv_groups is grouped-query attention's"));
  CHECK_THROWS_WITH(llm::GroupedQueryAttention(AttentionOptions(8, 12).num_heads(4).num_kv_groups(3)),
                    Catch::Contains("num_heads (4) must be divisible by num_kv_groups (3)"));
  CHECK_THROWS_WITH(llm::CausalAttention(AttentionOptions(8, 12).context_length(0)),
                    Catch::Contains("context_length must be positive, got 0"));
  CHECK_THROWS_WITH(llm::CausalAttention(AttentionOptions(8, 12).dropout(1.0)), Catch::Contains("dropout must be in [0, 1)"));
  llm::CausalAttention att(AttentionOptions(3, 2).context_length(4));
  CHECK_THROWS_WITH(att->forward(torch::rand({1, 5, 3})), Catch::Contains("5 tokens exceed context_length 4"));
  CHECK_THROWS_WITH(att->forward(torch::rand({5, 3})), Catch::Contains("input must be [batch, tokens, 3], got [5, 3]"));
}
