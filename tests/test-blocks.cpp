// The building blocks of Llama 3.2, Qwen3 and Gemma 3 against the course's code
// (tests/golden/ch05-blocks.pt, written by scripts/reference/ch05_blocks.py): the
// same seed gives the same parameters, and the outputs and gradients agree.
#include <functional>

#include "helpers.h"
#include "llm/attention/rope_attention.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/nn/gated_feed_forward.h"
#include "llm/nn/moe_feed_forward.h"
#include "llm/nn/rms_norm.h"
#include "llm/nn/rope.h"

using llm::test::check_close;
namespace tolerance = llm::test::tolerance;

namespace {

const llm::NamedTensors& golden() {
  static const auto archive = llm::load_tensors(llm::test::golden("ch05-blocks.pt"));
  return archive;
}

torch::Tensor get(const std::string& key) { return llm::find_tensor(golden(), key, "ch05-blocks.pt"); }

// The reference draws every RMSNorm's weight again, randn in registration order, so
// that the weights act.
void randomize_norms(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (const auto& child : module.modules()) {
    if (child->as<llm::RMSNormImpl>() == nullptr) continue;
    for (auto& p : child->parameters(/*recurse=*/false)) p.copy_(torch::randn(p.sizes()));
  }
}

// Runs `forward` on the golden input of `prefix` and checks the parameters as drawn
// (bit for bit), the output and every gradient of (output * grad_output).sum().
void check_block(const std::string& prefix, torch::nn::Module& module,
                 const std::function<torch::Tensor(const torch::Tensor&)>& forward) {
  for (const auto& item : module.named_parameters()) {
    INFO(prefix << " parameter " << item.key());
    CHECK(torch::equal(item.value(), get(prefix + "/param/" + item.key())));
  }
  const auto x = get(prefix + "/input").clone().requires_grad_();
  const auto out = forward(x);
  check_close(out, get(prefix + "/output"), prefix + " output", tolerance::kForward);
  out.backward(get(prefix + "/grad_output"));
  check_close(x.grad(), get(prefix + "/grad/input"), prefix + " input gradient", tolerance::kGradient);
  for (const auto& item : module.named_parameters()) {
    check_close(item.value().grad(), get(prefix + "/grad/" + item.key()), prefix + " gradient of " + item.key(),
                tolerance::kGradient);
  }
}

// RoPE attention of width 32 with 4 query heads.
llm::RopeAttentionOptions attention_options(int64_t kv_groups, int64_t head_dim,
                                            std::optional<llm::RMSNormStyle> qk_norm = std::nullopt,
                                            std::optional<double> query_pre_attn_scalar = std::nullopt) {
  llm::RopeAttentionOptions o;
  o.d_in = 32;
  o.num_heads = 4;
  o.num_kv_groups = kv_groups;
  o.head_dim = head_dim;
  o.qk_norm = qk_norm;
  o.query_pre_attn_scalar = query_pre_attn_scalar;
  return o;
}

}  // namespace

TEST_CASE("RMSNorm: Llama's, Qwen3's and Gemma 3's, in float32 and bfloat16") {
  const std::vector<std::tuple<std::string, double, llm::RMSNormStyle>> norms = {
      {"llama", 1e-5, llm::RMSNormStyle::kLlama},
      {"qwen3", 1e-6, llm::RMSNormStyle::kQwen3},
      {"gemma3", 1e-6, llm::RMSNormStyle::kGemma}};
  // Gemma stores w of 1 + w: zeros are the identity.
  CHECK(torch::equal(llm::RMSNorm(16, 1e-6, llm::RMSNormStyle::kGemma)->weight, torch::zeros({16})));
  for (const auto& [name, eps, style] : norms) {
    torch::manual_seed(123);
    llm::RMSNorm norm(16, eps, style);
    randomize_norms(*norm);
    check_block("rms_norm/" + name, *norm, [&](const torch::Tensor& x) { return norm(x); });
    if (name == "llama") norm->to(torch::kBFloat16);  // the course's Llama norms are bfloat16; the others float32
    const auto out = norm(get("rms_norm/" + name + "/bf16/input"));
    CHECK(out.scalar_type() == torch::kBFloat16);
    check_close(out, get("rms_norm/" + name + "/bf16/output"), name + " in bfloat16", tolerance::kBFloat16);
  }
}

TEST_CASE("RoPE: the tables with Llama 3's frequency scaling and plain, and the rotation with an offset") {
  const llm::RopeScaling llama32;  // the defaults are Llama 3.2's rope_freq
  const std::vector<std::tuple<std::string, double, std::optional<llm::RopeScaling>>> tables = {
      {"llama32", 500'000.0, llama32}, {"qwen3", 1'000'000.0, std::nullopt}, {"gemma3-local", 10'000.0, std::nullopt}};
  for (const auto& [name, base, scaling] : tables) {
    const auto rope = llm::compute_rope_params(16, base, 64, scaling);
    check_close(rope.cos, get("rope/" + name + "/cos"), name + " cos", tolerance::kForward);
    check_close(rope.sin, get("rope/" + name + "/sin"), name + " sin", tolerance::kForward);
  }
  // Llama 3's scaling changes the low frequencies and keeps the high ones.
  const auto plain = llm::compute_rope_params(16, 500'000.0, 64);
  const auto scaled = llm::compute_rope_params(16, 500'000.0, 64, llama32);
  CHECK(torch::equal(plain.cos.select(1, 0), scaled.cos.select(1, 0)));
  CHECK_FALSE(torch::allclose(plain.sin.select(1, 7), scaled.sin.select(1, 7)));

  const auto x = get("rope/apply/input");
  const auto rope = llm::RopeTables{get("rope/llama32/cos"), get("rope/llama32/sin")};
  check_close(llm::apply_rope(x, rope), get("rope/apply/output"), "apply_rope", tolerance::kForward);
  check_close(llm::apply_rope(x, rope, 7), get("rope/apply/offset7"), "apply_rope at offset 7", tolerance::kForward);
  CHECK_THROWS_WITH(llm::compute_rope_params(15, 10'000.0, 8), Catch::Contains("head_dim must be even"));
}

TEST_CASE("gated feed-forward: SwiGLU (Llama 3, Qwen3) and GeGLU (Gemma 3)") {
  for (const auto& [name, activation] : std::vector<std::pair<std::string, llm::GateActivation>>{
           {"swiglu", llm::GateActivation::kSiLU}, {"geglu", llm::GateActivation::kGELUTanh}}) {
    torch::manual_seed(123);
    llm::GatedFeedForward ff(16, 40, activation);
    check_block("feed_forward/" + name, *ff, [&](const torch::Tensor& x) { return ff(x); });
  }
}

TEST_CASE("mixture of experts: Qwen3's router, top-2 of 4 experts, the softmax-weighted sum") {
  torch::manual_seed(123);
  llm::MoEFeedForward moe(16, 4, 2, 8);
  check_block("feed_forward/moe", *moe, [&](const torch::Tensor& x) { return moe(x); });
  // One token decoded alone takes the experts its own scores pick.
  const auto x = get("feed_forward/moe/input");
  check_close(moe(x.slice(1, 2, 3)), moe(x).slice(1, 2, 3), "one token", tolerance::kSameMath);
  CHECK_THROWS_WITH(llm::MoEFeedForward(16, 4, 5, 8), Catch::Contains("num_experts_per_tok must be in 1..num_experts"));
}

TEST_CASE("RoPE attention: Llama 3.2's, Qwen3's with QK-norm, Gemma 3's sliding window") {
  const int64_t t = 6;
  {
    torch::manual_seed(123);
    auto options = attention_options(2, 0);
    options.keys_first = true;  // llama3.py's order
    llm::RopeAttention att(options);
    const auto rope = llm::compute_rope_params(8, 500'000.0, 16, llm::RopeScaling{});
    check_block("attention/llama32", *att, [&](const torch::Tensor& x) { return att(x, rope); });
  }
  {
    torch::manual_seed(123);
    llm::RopeAttention att(attention_options(2, 16, llm::RMSNormStyle::kQwen3));
    randomize_norms(*att);
    const auto rope = llm::compute_rope_params(16, 1'000'000.0, 16);
    check_block("attention/qwen3", *att, [&](const torch::Tensor& x) { return att(x, rope); });
  }
  {
    torch::manual_seed(123);
    llm::RopeAttention att(attention_options(1, 16, llm::RMSNormStyle::kGemma, 16.0));
    randomize_norms(*att);
    const auto rope = llm::compute_rope_params(16, 10'000.0, 16);
    CHECK(torch::equal(llm::attention_mask(t, t, 3, torch::kCPU), get("attention/gemma3-local/mask")));
    check_block("attention/gemma3-local", *att, [&](const torch::Tensor& x) { return att(x, rope, /*window=*/3); });
  }
}

// The course's test_grouped_query_attention_equivalence (pkg/llms_from_scratch/tests/
// test_llama3.py) compares its two GQA classes at d_in 32 and d_out 64; ours is compared
// with its GroupedQueryAttention there, from the same seed and draws.
TEST_CASE("RoPE attention: the course's GQA equivalence sizes, d_in 32 and d_out 64, seed 42") {
  torch::manual_seed(42);
  const auto x = torch::randn({2, 8, 32});
  CHECK(torch::equal(x, get("attention/llama32-d_out/input")));
  auto options = attention_options(2, 16);
  options.keys_first = true;
  options.out_features = 64;
  llm::RopeAttention att(options);
  llm::RopeScaling scaling;
  scaling.original_context_length = 8;
  const auto rope = llm::compute_rope_params(16, 50'000.0, 8, scaling);
  check_block("attention/llama32-d_out", *att, [&](const torch::Tensor& input) { return att(input, rope); });
  CHECK(att->out_proj->weight.sizes() == torch::IntArrayRef({64, 64}));
}

TEST_CASE("RoPE attention: a KV cache gives the uncached output, token by token and past the window") {
  torch::manual_seed(7);
  llm::RopeAttention att(attention_options(2, 16, llm::RMSNormStyle::kGemma, 16.0));
  randomize_norms(*att);
  const auto rope = llm::compute_rope_params(16, 10'000.0, 16);
  const auto x = torch::randn({2, 9, 32});
  for (const int64_t window : {0, 3}) {
    INFO("window " << window);
    const auto whole = att(x, rope, window);
    llm::LayerKVCache cache;
    std::vector<torch::Tensor> steps = {att->forward_cached(x.slice(1, 0, 4), rope, cache, window)};
    for (int64_t i = 4; i < 9; ++i) steps.push_back(att->forward_cached(x.slice(1, i, i + 1), rope, cache, window));
    check_close(torch::cat(steps, 1), whole, "cached", tolerance::kSameMath);
    CHECK(cache.length() == 9);
    CHECK(cache.keys.size(1) == 2);  // the cache holds the key/value groups, not the query heads
  }
  CHECK_THROWS_WITH(att(torch::randn({1, 17, 32}), rope), Catch::Contains("at most 16 tokens"));
  CHECK_THROWS_WITH(llm::RopeAttention(attention_options(3, 0)), Catch::Contains("must divide num_heads"));
}
