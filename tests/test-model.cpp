#include <fstream>
#include <nlohmann/json.hpp>

#include "helpers.h"
#include "llm/attention/scaled_dot_product.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/generate.h"
#include "llm/model/gpt_model.h"
#include "llm/model/gpt_weights.h"
#include "llm/model/model_config.h"
#include "llm/cli/model_flags.h"
#include "llm/util/error.h"
#include "llm/nn/linear.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

using llm::NamedTensors;

namespace {

NamedTensors golden(const std::string& name) { return llm::load_tensors(llm::test::golden("ch04-" + name + ".pt")); }
const torch::Tensor& get(const NamedTensors& g, const std::string& key) { return llm::find_tensor(g, key, "golden"); }
int64_t fingerprint_value(const torch::Tensor& t) { return llm::fingerprint(t).item<int64_t>(); }
int64_t fingerprint_of(const NamedTensors& g, const std::string& key) { return get(g, "fingerprint/" + key).item<int64_t>(); }

// A small GPT of 4 heads: multi-head attention, or grouped-query ("gqa") in 2 groups.
llm::GPTConfig four_heads(const std::string& attention, int64_t vocab_size, int64_t context_length, int64_t emb_dim,
                          int64_t n_layers) {
  llm::GPTConfig config;
  config.vocab_size = vocab_size;
  config.context_length = context_length;
  config.emb_dim = emb_dim;
  config.n_heads = 4;
  config.n_layers = n_layers;
  config.attention = attention == "moe" ? "mha" : attention;
  config.n_kv_groups = attention == "gqa" ? 2 : 0;
  if (attention == "swa") {  // block 0 slides over 4 positions, block 1 sees all (K:1, K = 1)
    config.sliding_window_size = 4;
    config.sliding_window_stride = 1;
  }
  if (attention == "moe") {  // 4 experts, 2 per token
    config.hidden_dim = 24;
    config.num_experts = 4;
  }
  return config;
}

// The config a golden was recorded with, read back through the config's own fields.
llm::GPTConfig config_of(const NamedTensors& g) {
  llm::GPTConfig c;
  for (const auto& field : llm::gpt_config_fields()) {
    std::visit(
        [&](auto member) {
          auto& value = c.*member;
          using Value = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<Value, std::string>) {
            value = get(g, "config/gqa").item<bool>() ? "gqa" : "mha";  // the reference's spelling
          } else if constexpr (std::is_same_v<Value, std::optional<double>> ||
                               std::is_same_v<Value, std::optional<int64_t>>) {
            const auto key = "config/" + std::string(field.key);
            const bool recorded = std::any_of(g.begin(), g.end(), [&](const auto& entry) { return entry.first == key; });
            if (recorded) value = get(g, key).item<typename Value::value_type>();  // unset: the default
          } else {
            value = get(g, "config/" + std::string(field.key)).item<Value>();
          }
        },
        field.member);
  }
  return c;
}

// The reference's sequence: seed, build, draw the input (unless given), forward in
// training mode, draw grad_output, backward. Weights must be bit-identical
// (fingerprints), drawn tensors equal, results within tolerance::kForward and kGradient.
template <typename Module>
void check_against_pytorch(const std::string& name, Module module,
                           const std::function<torch::Tensor()>& draw_input) {
  const auto g = golden(name);
  for (const auto& [key, tensor] : llm::state_dict(*module)) {
    INFO(name << ": same seed, same initial " << key);
    CHECK(fingerprint_value(tensor) == fingerprint_of(g, key));
  }
  const auto x = draw_input();
  REQUIRE(torch::equal(x.detach(), get(g, "input")));
  const auto out = module->forward(x);
  llm::test::check_close(out, get(g, "output"), name + " output", llm::test::tolerance::kForward);
  const auto grad_output = torch::randn(out.sizes());
  REQUIRE(torch::equal(grad_output, get(g, "grad_output")));
  out.backward(grad_output);
  if (x.requires_grad()) llm::test::check_close(x.grad(), get(g, "grad/input"), name + " grad/input",
                                                 llm::test::tolerance::kGradient);
  for (const auto& p : module->named_parameters()) {
    llm::test::check_close(p.value().grad(), get(g, "grad/" + p.key()), name + " grad/" + p.key(),
                           llm::test::tolerance::kGradient);
  }
}

}  // namespace

TEST_CASE("LayerNorm matches PyTorch") {
  torch::manual_seed(123);
  check_against_pytorch("layer-norm", llm::LayerNorm(16), [] { return torch::randn({2, 5, 16}).requires_grad_(); });
}

TEST_CASE("GELU matches PyTorch") {
  torch::manual_seed(123);
  check_against_pytorch("gelu", llm::GELU(), [] { return torch::linspace(-3, 3, 100).requires_grad_(); });
}

TEST_CASE("FeedForward matches PyTorch") {
  torch::manual_seed(123);
  check_against_pytorch("feed-forward", llm::FeedForward(16), [] { return torch::rand({2, 3, 16}).requires_grad_(); });
}

TEST_CASE("TransformerBlock with dropout matches PyTorch") {
  const auto config = config_of(golden("transformer-block"));
  torch::manual_seed(123);
  check_against_pytorch("transformer-block", llm::TransformerBlock(config),
                        [] { return torch::rand({2, 6, 16}).requires_grad_(); });
}

TEST_CASE("small GPTs match PyTorch: logits and gradients, both attention kinds, qkv_bias on and off") {
  for (const std::string name : {"mha", "mha-bias", "gqa", "gqa-bias", "mha-dropout"}) {
    const auto config = config_of(golden("gpt-small-" + name));
    torch::manual_seed(123);
    check_against_pytorch("gpt-small-" + name, llm::GPTModel(config),
                          [&] { return torch::randint(0, config.vocab_size, {2, 16}, torch::kLong); });
  }
}

// The tolerances must still catch a bug: with any one weight of the GPT moved by 1e-3
// before the reference's sequence runs, its logits or gradients leave them.
TEST_CASE("the golden comparison fails when any one weight moves by 1e-3") {
  using llm::test::closeness;
  namespace tol = llm::test::tolerance;
  const std::string name = "gpt-small-mha";
  const auto g = golden(name);
  const auto config = config_of(g);
  torch::manual_seed(123);
  const auto names = llm::GPTModel(config)->named_parameters().keys();
  for (const auto& key : names) {
    INFO(key << " moved by 1e-3");
    torch::manual_seed(123);
    llm::GPTModel model(config);
    const auto x = torch::randint(0, config.vocab_size, {2, 16}, torch::kLong);
    {
      torch::NoGradGuard no_grad;
      auto weight = model->named_parameters()[key];
      // The embedding rows that the input looks up; element 0 of every other weight.
      auto element = key == "tok_emb.weight" ? weight[x[0][0]][0] : weight.view(-1)[0];
      element += 1e-3;
    }
    const auto out = model->forward(x);
    out.backward(torch::randn(out.sizes()));
    bool all_close = closeness(out, get(g, "output"), tol::kForward).ok;
    for (const auto& p : model->named_parameters()) {
      all_close = all_close && closeness(p.value().grad(), get(g, "grad/" + p.key()), tol::kGradient).ok;
    }
    CHECK_FALSE(all_close);
  }
}

TEST_CASE("the 124M GPT: same seed, same weights and same greedy tokens as PyTorch") {
  const auto g = golden("gpt-124m");
  torch::manual_seed(123);
  llm::GPTModel model(llm::GPTConfig{});
  for (const auto& [key, tensor] : llm::state_dict(*model)) {
    INFO(key);
    CHECK(fingerprint_value(tensor) == fingerprint_of(g, key));
  }
  const int64_t total = llm::parameter_count(*model);
  CHECK(total == 163'009'536);
  CHECK(total - model->out_head->weight.numel() == 124'412'160);
  model->eval();
  const auto prompt = torch::tensor({{15496, 11, 314, 716}}, torch::kLong);  // "Hello, I am"
  const auto out = llm::generate_text_simple(*model, prompt, /*max_new_tokens=*/10, /*context_size=*/1024);
  CHECK(torch::equal(out, get(g, "generated")));
}

TEST_CASE("generation crops the context and works for any batch size") {
  llm::GPTConfig config;
  config.vocab_size = 50;
  config.context_length = 4;
  config.emb_dim = 8;
  config.n_heads = 2;
  config.n_layers = 1;
  config.drop_rate = 0.0;
  torch::manual_seed(1);
  llm::GPTModel model(config);
  model->eval();
  const auto prompt = torch::randint(0, 50, {3, 6}, torch::kLong);  // longer than the context
  const auto out = llm::generate_text_simple(*model, prompt, 5, config.context_length);
  CHECK(out.sizes() == torch::IntArrayRef{3, 11});
  CHECK(torch::equal(out.slice(1, 0, 6), prompt));
  // Each row alone gives the same tokens as in the batch.
  for (int64_t r = 0; r < 3; ++r) {
    CHECK(torch::equal(llm::generate_text_simple(*model, prompt.slice(0, r, r + 1), 5, 4), out.slice(0, r, r + 1)));
  }
  CHECK_THROWS_WITH(llm::generate_text_simple(*model, torch::empty({1, 0}, torch::kLong), 5, 4),
                    Catch::Contains("at least one token"));
  CHECK_THROWS_WITH(model->forward(torch::full({1, 2}, 50, torch::kLong)), Catch::Contains("token ids must be in 0..49"));
}

TEST_CASE("sampling: seeded draws repeat, temperature 0 and top-k 1 are greedy, eos stops") {
  llm::GPTConfig config = llm::load_gpt_config(llm::config_file("tiny.json"));
  config.vocab_size = 100;
  torch::manual_seed(123);
  llm::GPTModel model(config);
  model->eval();
  const auto prompt = torch::tensor({{1, 2, 3}}, torch::kLong);
  const auto sample = [&](const llm::SamplingOptions& options) {
    torch::manual_seed(7);
    return llm::generate(*model, prompt, options);
  };
  const auto sampled = sample(llm::SamplingOptions(20).temperature(1.5).top_k(10));
  CHECK(torch::equal(sampled, sample(llm::SamplingOptions(20).temperature(1.5).top_k(10))));
  const auto greedy = llm::generate_text_simple(*model, prompt, 20, config.context_length);
  CHECK(torch::equal(sample(llm::SamplingOptions(20)), greedy));
  CHECK(torch::equal(sample(llm::SamplingOptions(20).temperature(2.0).top_k(1)), greedy));
  CHECK_FALSE(torch::equal(sampled, greedy));
  // Stopping at the greedy path's fifth new token leaves exactly the tokens before its
  // first occurrence on that path (the fifth, or an earlier one of the same id).
  const int64_t eos = greedy[0][3 + 4].item<int64_t>();
  int64_t first = 0;
  while (greedy[0][3 + first].item<int64_t>() != eos) ++first;
  const auto stopped = sample(llm::SamplingOptions(20).eos_id(eos));
  CHECK(torch::equal(stopped, greedy.slice(1, 0, 3 + first)));
  CHECK_THROWS_WITH(llm::SamplingOptions(5).temperature(-1).validate(), Catch::Contains("temperature must be"));
  CHECK_THROWS_WITH(sample(llm::SamplingOptions(5).eos_id(100)), Catch::Contains("eos_id"));
}

TEST_CASE("configs load with validation that names the file and the key") {
  const auto c = llm::load_gpt_config("configs/gpt2-small.json");
  CHECK(c.emb_dim == 768);
  CHECK(c.n_layers == 12);
  CHECK(llm::load_gpt_config("configs/gpt2-xl.json").emb_dim == 1600);
  CHECK(llm::load_gpt_config("configs/gpt2-small-256.json").context_length == 256);
  CHECK(llm::load_gpt_config("configs/tiny-gqa.json").attention == "gqa");
  const auto rejects = [](const std::string& json, const std::string& message) {
    CHECK_THROWS_WITH(llm::parse_gpt_config(json, "x.json"), Catch::Contains(message));
  };
  rejects("{\"emb_dim\": 768, \"n_heads\": 5}", "config 'x.json': n_heads (5) must divide emb_dim (768)");
  rejects("{\"n_layers\": 0}", "n_layers must be positive, got 0");
  rejects("{\"emb_dim\": \"big\"}", "emb_dim must be an integer, got \"big\"");
  rejects("{\"emb_dims\": 3}", "unknown key 'emb_dims'");
  rejects("{\"attention\": \"gqa\", \"n_kv_groups\": 5}", "n_kv_groups (5) must divide n_heads (12)");
  rejects("{\"n_kv_groups\": 4}", "n_kv_groups (4) needs attention \"gqa\"");  // one knob per choice
  rejects("{\"attention\": \"flash\"}", "attention must be \"mha\", \"gqa\", \"mla\" or \"swa\"");
  rejects("{\"latent_dim\": 64}", "latent_dim (64) needs attention \"mla\"");
  rejects("{\"attention\": \"mla\", \"latent_dim\": 0}", "latent_dim must be in 1..768 (emb_dim), got 0");
  rejects("{\"attention\": \"mla\", \"latent_dim\": 1.5}", "latent_dim must be an integer, got 1.5");
  rejects("{\"attention\": \"mla\", \"latent_dim\": 769}", "latent_dim must be in 1..768 (emb_dim), got 769");
  rejects("{\"attention\": \"swa\"}", "attention \"swa\" needs sliding_window_size");
  rejects("{\"attention\": \"swa\", \"sliding_window_size\": 0}",
          "sliding_window_size must be in 1..1024 (context_length), got 0");
  rejects("{\"attention\": \"swa\", \"sliding_window_size\": 1025}",
          "sliding_window_size must be in 1..1024 (context_length), got 1025");
  rejects("{\"sliding_window_size\": 4}", "sliding_window_size (4) needs attention \"swa\"");
  rejects("{\"sliding_window_stride\": 5}", "sliding_window_stride (5) needs attention \"swa\"");
  rejects("{\"num_experts\": 2, \"num_experts_per_tok\": 3}", "num_experts_per_tok must be in 1..2 (num_experts), got 3");
  rejects("{\"num_experts\": 1}", "num_experts_per_tok must be in 1..1 (num_experts), got 2");  // the default 2
  rejects("{\"num_experts_per_tok\": 2}", "num_experts_per_tok (2) needs num_experts");
  rejects("{\"num_experts\": -1}", "num_experts must be positive (or 0: dense), got -1");
  rejects("{\"hidden_dim\": 0}", "hidden_dim must be positive, got 0");
  const auto swa = llm::parse_gpt_config(
      "{\"attention\": \"swa\", \"sliding_window_size\": 4, \"sliding_window_stride\": 2, \"n_layers\": 6}", "x.json");
  CHECK(std::vector<int64_t>{swa.window_of_layer(0), swa.window_of_layer(1), swa.window_of_layer(2),
                             swa.window_of_layer(5)} == std::vector<int64_t>{4, 4, 0, 0});  // K:1 with K = 2
  const auto mla = llm::parse_gpt_config("{\"attention\": \"mla\", \"latent_dim\": 64}", "x.json");
  CHECK(mla.latent_dim == 64);
  CHECK(llm::to_json(mla).at("latent_dim") == 64);
  CHECK(!llm::to_json(c).contains("latent_dim"));  // unset: not written
  rejects("{\"drop_rate\": 1.5}", "drop_rate must be in [0, 1)");
  rejects("[1]", "expected a JSON object");
  rejects("{", "not valid JSON");
  CHECK_THROWS_WITH(llm::load_gpt_config("configs/nope.json"), Catch::Contains("nope.json': not found"));
}

TEST_CASE("model configs name their family (the GPT's needs no key) and checkpoints keep what rebuilds the model") {
  const auto gpt = llm::ModelConfig::load("configs/tiny-gqa.json");
  CHECK(gpt.family() == "gpt2");
  CHECK(gpt.shape().n_heads == 4);
  CHECK(gpt.shape().kv_heads == 2);
  CHECK(llm::ModelConfig::parse(R"({"family": "gpt2", "n_layers": 2})", "x.json").shape().n_layers == 2);
  CHECK_THROWS_WITH(llm::ModelConfig::parse(R"({"family": "gpt5"})", "x.json"),
                    Catch::Contains("config 'x.json': family must be one of \"gpt2\""));
  CHECK_THROWS_WITH(llm::ModelConfig::parse(R"({"family": 2})", "x.json"), Catch::Contains("family must be one of"));
  CHECK_THROWS_WITH(llm::ModelConfig::parse(R"({"family": "gpt2", "n_layer": 2})", "x.json"),
                    Catch::Contains("unknown key 'n_layer'"));

  torch::manual_seed(123);
  llm::LanguageModel model = gpt.make();
  CHECK(model->family() == "gpt2");
  CHECK(model->shape().kv_heads == 2);
  CHECK(model->new_cache().layers.size() == static_cast<size_t>(model->shape().n_layers));
  // The default family's config is the lesson's dict, without the key, and reads back
  // to the same model.
  const auto json = llm::model_config_json(*model);
  CHECK_FALSE(json.contains("family"));
  const auto again = llm::ModelConfig::parse(json.dump(), "checkpoint");
  CHECK(again.family() == "gpt2");
  torch::manual_seed(123);
  auto rebuilt = again.make();
  CHECK(llm::model_config_json(*rebuilt) == json);
  rebuilt->eval();
  model->eval();
  const auto ids = torch::tensor({{1, 2, 3}});
  CHECK(torch::equal(rebuilt->forward(ids), model->forward(ids)));
}

TEST_CASE("state dicts move both ways by the PyTorch names") {
  const auto g = golden("gpt-small-mha");
  const auto config = config_of(g);
  torch::manual_seed(5);
  llm::GPTModel model(config);
  const auto dir = llm::test::temp_dir("state-dict");
  llm::save_tensors(dir / "model.pt", llm::state_dict(*model));
  torch::manual_seed(6);
  llm::GPTModel other(config);
  llm::load_state_dict(*other, llm::load_tensors(dir / "model.pt"), "model.pt");
  const auto ids = torch::randint(0, config.vocab_size, {2, 8}, torch::kLong);
  model->eval();
  other->eval();
  CHECK(torch::equal(model->forward(ids), other->forward(ids)));
  const auto keys = llm::state_dict(*model);
  CHECK(keys.front().first == "tok_emb.weight");
  CHECK(keys.back().first == "out_head.weight");
  CHECK_NOTHROW(llm::find_tensor(keys, "trf_blocks.1.ff.layers.2.bias", "model"));
  CHECK_NOTHROW(llm::find_tensor(keys, "trf_blocks.0.att.mask", "model"));

  auto gqa_config = config;
  gqa_config.attention = "gqa";
  gqa_config.n_kv_groups = 2;
  llm::GPTModel gqa(gqa_config);
  CHECK_THROWS_WITH(llm::load_state_dict(*gqa, llm::load_tensors(dir / "model.pt"), "model.pt"),
                    Catch::Contains("unexpected key 'trf_blocks.0.att.mask'"));
  // Grouped-query attention in the course's layout: no mask and no out_proj bias.
  const auto gqa_keys = llm::state_dict(*gqa);
  CHECK_THROWS(llm::find_tensor(gqa_keys, "trf_blocks.0.att.mask", "gqa"));
  CHECK_THROWS(llm::find_tensor(gqa_keys, "trf_blocks.0.att.out_proj.bias", "gqa"));
  CHECK(llm::find_tensor(gqa_keys, "trf_blocks.0.att.W_key.weight", "gqa").sizes() == torch::IntArrayRef{32, 64});
  llm::save_tensors(dir / "gqa.pt", gqa_keys);
  llm::GPTModel gqa_again(gqa_config);
  llm::load_state_dict(*gqa_again, llm::load_tensors(dir / "gqa.pt"), "gqa.pt");
  gqa->eval();
  gqa_again->eval();
  CHECK(torch::equal(gqa->forward(ids), gqa_again->forward(ids)));
}

TEST_CASE("KV-cache generation gives the tokens of uncached generation: MHA, GQA, MLA, SWA and MoE, greedy and sampled, "
          "past the context") {
  for (const std::string attention : {"mha", "gqa", "mla", "swa", "moe"}) {
    INFO(attention);
    const auto config = four_heads(attention, /*vocab_size=*/200, /*context_length=*/16, /*emb_dim=*/32, /*n_layers=*/2);
    torch::manual_seed(1);
    llm::GPTModel model(config);
    model->eval();
    const auto prompt = torch::randint(0, config.vocab_size, {2, 5}, torch::kLong);
    for (const auto& options : {llm::SamplingOptions(30), llm::SamplingOptions(30).temperature(1.0).top_k(20)}) {
      torch::manual_seed(9);
      const auto uncached = llm::generate(*model, prompt, llm::SamplingOptions(options).kv_cache(false));
      torch::manual_seed(9);
      const auto cached = llm::generate(*model, prompt, llm::SamplingOptions(options).kv_cache(true));
      CHECK(uncached.size(1) == 5 + 30);  // 35 tokens: the window slid past context_length 16
      CHECK(torch::equal(cached, uncached));
    }
    // Logits fed in two parts through the cache equal one forward pass; the cache holds
    // only the key/value heads (num_kv_groups for GQA).
    llm::KVCache cache(config.n_layers);
    const auto first = model->forward_cached(prompt.slice(1, 0, 3), cache);
    const auto second = model->forward_cached(prompt.slice(1, 3, 5), cache);
    llm::test::check_close(torch::cat({first, second}, 1), model->forward(prompt), "cached logits", llm::test::tolerance::kForward);
    CHECK(cache.length() == 5);
    if (attention == "mla") {  // the latent alone: max(16, 32 / 8) numbers per token, no keys or values
      CHECK(cache.layers[0].latent.sizes() == torch::IntArrayRef{2, 5, 16});
      CHECK(!cache.layers[0].keys.defined());
    } else {
      CHECK(cache.layers[0].keys.size(1) == (attention == "gqa" ? 2 : 4));
    }
    // A rolling cache: the sliding block keeps its window of 4 of the 5 tokens seen.
    CHECK(cache.layers[0].held() == (attention == "swa" ? 4 : 5));
    CHECK(cache.layers[1].held() == 5);
    llm::KVCache full(config.n_layers);
    model->forward_cached(torch::zeros({1, 16}, torch::kLong), full);
    CHECK_THROWS_WITH(model->forward_cached(torch::zeros({1, 1}, torch::kLong), full), Catch::Contains("context_length 16"));
  }
}

// The course's ch04/06_swa/tests.py, case by case.
TEST_CASE("Sliding-window attention: a cached prefill equals the uncached pass and keeps the window") {
  torch::manual_seed(123);
  llm::SlidingWindowAttention att(llm::AttentionOptions(8, 8).num_heads(2), /*window=*/4);
  att->eval();
  const auto x = torch::randn({1, 6, 8});
  const auto expected = att(x);
  llm::LayerKVCache cache;
  const auto actual = att->forward_cached(x, cache);
  CHECK_FALSE(actual.isnan().any().item<bool>());
  CHECK(torch::allclose(actual, expected, /*rtol=*/0, /*atol=*/1e-6));
  CHECK(cache.keys.size(2) == 4);
  CHECK(cache.values.size(2) == 4);
  CHECK(cache.length() == 6);
}

TEST_CASE("Sliding-window attention: a window as wide as the context is the base GPT") {
  llm::GPTConfig base;
  base.vocab_size = 257;
  base.context_length = 8;
  base.emb_dim = 32;
  base.n_heads = 4;
  base.n_layers = 2;
  base.drop_rate = 0.0;
  auto swa = base;
  swa.attention = "swa";
  swa.sliding_window_size = base.context_length;
  swa.sliding_window_stride = -1;  // every layer slides
  torch::manual_seed(123);
  llm::GPTModel base_model(base);
  llm::GPTModel swa_model(swa);
  NamedTensors weights;
  for (const auto& [name, tensor] : llm::state_dict(*base_model)) {
    if (name.size() < 9 || name.substr(name.size() - 9) != ".att.mask") weights.emplace_back(name, tensor);
  }
  llm::load_state_dict(*swa_model, weights, "the base model");  // strict: every key, no other
  base_model->eval();
  swa_model->eval();
  const auto full_input = torch::randint(0, base.vocab_size, {1, base.context_length});
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(swa_model(full_input), base_model(full_input), /*rtol=*/0, /*atol=*/1e-6));
  const auto prompt = full_input.slice(1, 0, 6);
  const auto expected = llm::generate(*base_model, prompt, llm::SamplingOptions(2).kv_cache(false));
  const auto actual = llm::generate(*swa_model, prompt, llm::SamplingOptions(2).kv_cache(true));
  CHECK(torch::equal(actual, expected));
}

TEST_CASE("Mixture of experts in the GPT: the course's names, a dense hidden_dim, and the parameter count") {
  auto config = four_heads("moe", /*vocab_size=*/50, /*context_length=*/8, /*emb_dim=*/16, /*n_layers=*/1);
  llm::GPTModel moe(config);
  const auto keys = moe->named_parameters().keys();
  for (const auto* key : {"trf_blocks.0.ff.gate.weight", "trf_blocks.0.ff.fc1.3.weight", "trf_blocks.0.ff.fc3.0.weight"}) {
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
  CHECK(llm::parameter_count(*(*moe->trf_blocks)[0]->ff.ptr()) == 16 * 4 + 4 * 3 * 16 * 24);
  config.num_experts.reset();
  llm::GPTModel dense(config);  // the lesson's feed-forward, 24 wide
  CHECK(llm::parameter_count(*(*dense->trf_blocks)[0]->ff.ptr()) == 16 * 24 + 24 + 24 * 16 + 16);
  CHECK(llm::hf_gpt2_layout_problem(config) == "Hugging Face's GPT-2 layout reads a feed-forward of 4 x emb_dim; "
                                               "this model's is 24 wide");
}

TEST_CASE("Linear: the same seed gives nn.Linear's weights, draws and output") {
  for (const bool bias : {true, false}) {
    torch::manual_seed(7);
    torch::nn::Linear theirs(torch::nn::LinearOptions(48, 80).bias(bias));
    const auto after_theirs = torch::rand({4});
    torch::manual_seed(7);
    llm::Linear ours(48, 80, bias);
    const auto after_ours = torch::rand({4});
    CHECK(torch::equal(ours->weight, theirs->weight));
    CHECK(ours->bias.defined() == bias);
    if (bias) CHECK(torch::equal(ours->bias, theirs->bias));
    CHECK(torch::equal(after_ours, after_theirs));  // as many draws
    CHECK(ours->named_parameters().keys() == theirs->named_parameters().keys());
    const auto x = torch::randn({2, 3, 48});
    llm::test::check_close(ours(x), theirs(x), "Linear", llm::test::tolerance::kSameMath);
  }
}

TEST_CASE("LoRA: appendix E's counts, a no-op until it trains, and a merge that keeps the function") {
  const auto config = llm::load_gpt_config(llm::config_file("tiny.json"));
  torch::manual_seed(123);
  llm::GPTModel model(config);
  model->eval();  // no dropout: the same input, the same logits
  const auto x = torch::randint(config.vocab_size, {2, 6}, torch::kLong);
  const auto before = model(x);
  const auto keys = model->named_parameters().keys();
  for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);

  torch::manual_seed(3);
  const auto added = llm::add_lora(*model, 4, 8.0);
  CHECK(added == config.n_layers * 6 + 1);  // W_query, W_key, W_value, out_proj, two in ff; out_head
  CHECK(llm::has_lora(*model));
  torch::manual_seed(3);  // the first Linear's LoRA draws first
  auto first_a = torch::empty({config.emb_dim, 4});
  torch::nn::init::kaiming_uniform_(first_a, std::sqrt(5.0));
  CHECK(torch::equal((*model->trf_blocks)[0]->att->W_query->lora->A, first_a));
  int64_t lora_parameters = 0;
  for (const auto& parameter : model->parameters()) lora_parameters += parameter.requires_grad() ? parameter.numel() : 0;
  const int64_t e = config.emb_dim, v = config.vocab_size;
  CHECK(lora_parameters == config.n_layers * (4 * (e * 4 + 4 * e) + 2 * (e * 4 + 4 * 4 * e)) + e * 4 + 4 * v);
  llm::test::check_close(model(x), before, "LoRA with B = 0", llm::test::tolerance::kSameMath);
  CHECK_THROWS_WITH(llm::add_lora(*model, 4, 8.0), Catch::Contains("has a LoRA already"));

  {
    torch::NoGradGuard no_grad;
    for (auto& item : model->named_parameters()) {
      if (item.key().find(".lora.B") != std::string::npos) item.value().normal_(0.0, 0.02);
    }
  }
  const auto with_lora = model(x);
  CHECK_FALSE(torch::allclose(with_lora, before));
  CHECK(llm::merge_lora(*model) == added);
  CHECK_FALSE(llm::has_lora(*model));
  CHECK(model->named_parameters().keys() == keys);  // the plain GPT's state dict again
  llm::test::check_close(model(x), with_lora, "merged LoRA", llm::test::tolerance::kForward);
}

TEST_CASE("LoRA: the appendix's 124M classifier trains 2,666,528 parameters") {
  auto config = llm::load_gpt_config(llm::config_file("gpt2-124m.json"));
  torch::manual_seed(123);
  llm::GPTModel model(config);
  model->out_head = model->replace_module("out_head", llm::Linear(config.emb_dim, 2));
  int64_t total = 0;
  for (auto& parameter : model->parameters()) total += parameter.numel();
  CHECK(total == 124'441'346);
  for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
  llm::add_lora(*model, 16, 16.0);
  int64_t trainable = 0;
  for (const auto& parameter : model->parameters()) trainable += parameter.requires_grad() ? parameter.numel() : 0;
  CHECK(trainable == 2'666'528);
}

TEST_CASE("Linear::forward_matvec: a single row through the matrix-vector path equals forward") {
  torch::manual_seed(5);
  for (const bool bias : {true, false}) {
    llm::Linear layer(48, 80, bias);
    for (const bool lora : {false, true}) {
      if (lora) {
        layer->lora = layer->register_module("lora", llm::LoRA(48, 80, 4, 8.0));
        torch::NoGradGuard no_grad;
        layer->lora->B.normal_();  // B starts at zeros: give the update something to add
      }
      for (const auto& shape : std::vector<std::vector<int64_t>>{{1, 1, 48}, {48}, {1, 48}, {3, 48}, {2, 1, 48}}) {
        const auto x = torch::randn(shape);
        const auto ours = layer->forward_matvec(x);
        const auto theirs = layer(x);
        INFO("bias " << bias << ", LoRA " << lora << ", input " << llm::shape(x));
        CHECK(ours.sizes() == theirs.sizes());
        llm::test::check_close(ours, theirs, "linear", llm::test::tolerance::kSameMath);
      }
    }
  }
}

TEST_CASE("attention maps: every layer's and head's causal weights, recorded only when asked") {
  for (const std::string attention : {"mha", "gqa"}) {
    INFO(attention);
    auto config = four_heads(attention, /*vocab_size=*/50, /*context_length=*/8, /*emb_dim=*/16, /*n_layers=*/3);
    config.drop_rate = 0.5;  // eval mode: no dropout on the recorded weights
    torch::manual_seed(2);
    llm::GPTModel model(config);
    const auto ids = torch::randint(0, 50, {1, 6}, torch::kLong);

    model->eval();
    const auto logits = model->forward(ids);
    auto* first = (*model->trf_blocks)[0]->att.get();
    CHECK_FALSE(first->recorded_weights.defined());  // off by default: nothing is kept

    model->train();
    const auto weights = model->attention_weights(ids);
    CHECK(model->is_training());  // the mode is restored
    CHECK_FALSE(first->record_weights);
    CHECK_FALSE(first->recorded_weights.defined());
    REQUIRE(weights.sizes() == torch::IntArrayRef{3, 4, 6, 6});
    CHECK(torch::equal(weights.triu(1), torch::zeros_like(weights)));  // nothing from the future
    llm::test::check_close(weights.sum(-1), torch::ones({3, 4, 6}), "rows sum to 1", llm::test::tolerance::kSameMath);
    model->eval();
    CHECK(torch::equal(model->forward(ids), logits));  // recording changed nothing

    // Layer 0 by hand: the lesson's softmax(q k^T / sqrt(d)) of the first block's input.
    torch::NoGradGuard no_grad;
    const auto x = (*model->trf_blocks)[0]->norm1(model->tok_emb(ids) +
                                                                            model->pos_emb(torch::arange(6)));
    const auto q = llm::split_heads(first->W_query(x), 4);
    const auto k = llm::split_heads(first->W_key(x), config.attention == "gqa" ? 2 : 4).repeat_interleave(
        config.attention == "gqa" ? 2 : 1, 1);
    const auto scores = torch::matmul(q, k.transpose(-2, -1)).masked_fill(llm::causal_mask(6).to(torch::kBool), -INFINITY);
    llm::test::check_close(weights[0], torch::softmax(scores / 2.0, -1)[0], "layer 0", llm::test::tolerance::kForward);
  }
}
