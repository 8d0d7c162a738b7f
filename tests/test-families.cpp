// Llama 3.2, Qwen3 (dense and MoE) and Gemma 3 against the course's own classes at
// tiny sizes (tests/golden/ch05-tiny-*.pt, written by scripts/reference/
// ch05_families.py): the same seed gives the same weights bit for bit, the logits and
// gradients agree, greedy decoding picks the same ids, and the KV cache changes
// nothing.
#include <algorithm>

#include "helpers.h"
#include "llm/model/rope_decoder.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/gemma3_model.h"
#include "llm/model/generate.h"
#include "llm/model/hf_folder.h"
#include "llm/model/llama3_model.h"
#include "llm/model/model_config.h"
#include "llm/model/qwen3_model.h"
#include "llm/nn/module_repr.h"
#include "llm/reference/recording.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

using llm::test::check_close;
namespace tolerance = llm::test::tolerance;

namespace {

const std::vector<std::string> kTinyConfigs = {"tiny-llama32", "tiny-qwen3", "tiny-qwen3-moe", "tiny-gemma3"};

llm::LanguageModel seeded_model(const std::string& name) {
  const auto config = llm::ModelConfig::load("configs/" + name + ".json");
  torch::manual_seed(123);
  return config.make();
}

}  // namespace

TEST_CASE("the course's weights from the same seed, its logits, gradients and greedy ids") {
  for (const auto& name : kTinyConfigs) {
    INFO(name);
    const auto golden = llm::load_tensors(llm::test::golden("ch05-" + name + ".pt"));
    const auto get = [&](const std::string& key) { return llm::find_tensor(golden, key, name); };
    auto model = seeded_model(name);

    // The state dict has the course's names, no more and no fewer, and its values.
    size_t fingerprints = 0;
    for (const auto& [key, tensor] : golden) fingerprints += key.rfind("fingerprint/", 0) == 0 ? 1 : 0;
    const auto ours = llm::state_dict(*model);
    CHECK(ours.size() == fingerprints);
    for (const auto& [key, tensor] : ours) {
      INFO(key);
      CHECK(llm::fingerprint(tensor).item<int64_t>() == get("fingerprint/" + key).item<int64_t>());
    }
    CHECK(llm::parameter_count(*model) == get("parameters").item<int64_t>());

    const auto ids = get("ids");
    const auto logits = model->forward(ids);
    check_close(logits, get("logits"), name + " logits", tolerance::kForward);
    logits.backward(get("grad_output"));
    for (const auto& item : model->named_parameters()) {
      check_close(item.value().grad(), get("grad/" + item.key()), name + " gradient of " + item.key(),
                  tolerance::kGradient);
    }

    model->eval();
    const auto prompt = ids.slice(0, 0, 1).slice(1, 0, 5);
    for (const bool kv_cache : {false, true}) {
      INFO("KV cache " << kv_cache);
      CHECK(torch::equal(llm::generate(*model, prompt, llm::SamplingOptions(8).kv_cache(kv_cache)), get("greedy")));
    }
  }
}

TEST_CASE("cached logits equal uncached, through Gemma 3's sliding window and past it") {
  for (const auto& name : kTinyConfigs) {
    INFO(name);
    auto model = seeded_model(name);
    model->eval();
    torch::NoGradGuard no_grad;
    const auto ids = torch::randint(0, model->shape().vocab_size, {2, 20}, torch::kLong);
    const auto whole = model->forward(ids);
    auto cache = model->new_cache();
    std::vector<torch::Tensor> steps = {model->forward_cached(ids.slice(1, 0, 7), cache)};
    for (int64_t i = 7; i < 20; ++i) steps.push_back(model->forward_cached(ids.slice(1, i, i + 1), cache));
    check_close(torch::cat(steps, 1), whole, name + " cached", tolerance::kSameMath);
    // Sampled generation draws the same tokens with and without the cache.
    const auto sampling = llm::SamplingOptions(6).temperature(1.5).top_k(20);
    torch::manual_seed(5);
    const auto uncached = llm::generate(*model, ids.slice(0, 0, 1), llm::SamplingOptions(sampling).kv_cache(false));
    torch::manual_seed(5);
    CHECK(torch::equal(llm::generate(*model, ids.slice(0, 0, 1), sampling), uncached));
  }
}

TEST_CASE("a state dict round trip, the attention maps, and the explorer's shape") {
  auto model = seeded_model("tiny-gemma3");
  auto other = llm::ModelConfig::load("configs/tiny-gemma3.json").make();
  other->load_weights(llm::state_dict(*model), "the model's state dict");
  const auto ids = torch::randint(0, 500, {1, 9}, torch::kLong);
  CHECK(torch::equal(other->forward(ids), model->forward(ids)));
  const auto weights = model->attention_weights(ids);
  REQUIRE(weights.sizes() == torch::IntArrayRef{3, 4, 9, 9});
  CHECK(torch::equal(weights.triu(1), torch::zeros_like(weights)));  // nothing from the future
  // The sliding-window layers (0 and 1, window 4) see no token 4 or more back; layer 2 does.
  CHECK(weights[0].tril(-4).abs().sum().item<double>() == 0.0);
  CHECK(weights[2].tril(-4).abs().sum().item<double>() > 0.0);

  auto missing = llm::state_dict(*model);
  missing.pop_back();
  CHECK_THROWS_WITH(other->load_weights(missing, "cut.pt"), Catch::Contains("cut.pt"));
}

TEST_CASE("the notebooks' parameter counts, from the configs' sizes") {
  // The config's keys but "family", read without building the model (30B-A3B is 61 GB
  // in bfloat16).
  const auto settings = [](const std::string& name) {
    auto json = nlohmann::json::parse(llm::read_file("configs/" + name + ".json"));
    json.erase("family");
    return json;
  };
  const auto llama = llm::Llama3ModelImpl::config_from_json(settings("llama32-1b"), "llama32-1b");
  CHECK(llama.parameters() == 1'498'482'688.0);
  CHECK(llama.parameters() - static_cast<double>(llama.vocab_size * llama.emb_dim) == 1'235'814'400.0);  // tied head
  const auto qwen3 = llm::Qwen3ModelImpl::config_from_json(settings("qwen3-0.6b"), "qwen3-0.6b");
  CHECK(qwen3.parameters() == 751'632'384.0);
  CHECK(qwen3.parameters() - static_cast<double>(qwen3.vocab_size * qwen3.emb_dim) == 596'049'920.0);
  const auto moe = llm::Qwen3ModelImpl::config_from_json(settings("qwen3-30b-a3b"), "x");
  CHECK(moe.parameters() == 30'532'122'624.0);
  CHECK(moe.parameters() - static_cast<double>(moe.vocab_size * moe.emb_dim) == 30'220'957'696.0);
  // standalone-qwen3-moe's calc_model_memory_size: parameters, gradients and the cos
  // and sin tables, 227.73 GB in float32 and 113.87 GB in bfloat16.
  const double moe_elements = 2 * moe.parameters() + 2.0 * static_cast<double>(moe.context_length * moe.head_dim);
  CHECK(fmt::format("{:.2f} {:.2f}", moe_elements * 4 / (1 << 30), moe_elements * 2 / (1 << 30)) == "227.73 113.87");
  const auto gemma3 = llm::Gemma3ModelImpl::config_from_json(settings("gemma3-270m"), "gemma3-270m");
  CHECK(gemma3.parameters() == 435'870'336.0);
  CHECK(gemma3.parameters() - static_cast<double>(gemma3.vocab_size * gemma3.emb_dim) == 268'098'176.0);

  // The formulas count what the models hold.
  for (const auto& name : kTinyConfigs) {
    INFO(name);
    auto model = seeded_model(name);
    const auto held = llm::parameter_count(*model);
    const auto json = settings(name);
    const double counted = name.find("llama") != std::string::npos  ? llm::Llama3ModelImpl::config_from_json(json, name).parameters()
                           : name.find("qwen3") != std::string::npos ? llm::Qwen3ModelImpl::config_from_json(json, name).parameters()
                                                                      : llm::Gemma3ModelImpl::config_from_json(json, name).parameters();
    CHECK(static_cast<double>(held) == counted);
  }
}

TEST_CASE("configs that cannot be are one line naming the key") {
  const auto rejects = [](const std::string& json, const std::string& message) {
    CHECK_THROWS_WITH(llm::ModelConfig::parse(json, "x.json"), Catch::Contains(message));
  };
  rejects(R"({"family": "qwen3", "n_kv_groups": 3})", "n_kv_groups (3) must divide n_heads (16)");
  rejects(R"({"family": "qwen3", "dtype": "int4"})", "dtype must be \"float32\", \"bfloat16\" or \"float16\"");
  rejects(R"({"family": "qwen3", "head_dim": 127})", "head_dim must be even");
  rejects(R"({"family": "qwen3", "num_experts": 4, "num_experts_per_tok": 5, "moe_intermediate_size": 8})",
          "num_experts_per_tok must be in 1..4");
  rejects(R"({"family": "llama3", "rope_freq": {"factor": 32.0, "low_freq_factor": 4.0, "high_freq_factor": 1.0}})",
          "rope_freq needs");
  rejects(R"({"family": "llama3", "rope_freq": {"factors": 3}})", "unknown key 'factors'");
  rejects(R"({"family": "gemma3", "n_layers": 2, "layer_types": ["full_attention"]})",
          "layer_types has 1 entries; expected one per layer (n_layers 2)");
  rejects(R"({"family": "gemma3", "layer_types": ["local"]})", "each of layer_types must be");
  rejects(R"({"family": "qwen3", "vocab_size": 1000000000000})", "of memory needed");
}

TEST_CASE("Hugging Face's tensor names, as the course's loaders read them, tied or not") {
  CHECK(llm::hf_tensor_name("trf_blocks.3.att.W_query.weight", "trf_blocks") == "model.layers.3.self_attn.q_proj.weight");
  CHECK(llm::hf_tensor_name("trf_blocks.0.norm1.weight", "trf_blocks") == "model.layers.0.input_layernorm.weight");
  CHECK(llm::hf_tensor_name("trf_blocks.0.att.k_norm.scale", "trf_blocks") == "model.layers.0.self_attn.k_norm.weight");
  CHECK(llm::hf_tensor_name("trf_blocks.1.ff.fc2.7.weight", "trf_blocks") == "model.layers.1.mlp.experts.7.up_proj.weight");
  CHECK(llm::hf_tensor_name("trf_blocks.1.ff.gate.weight", "trf_blocks") == "model.layers.1.mlp.gate.weight");
  CHECK(llm::hf_tensor_name("blocks.2.post_feedforward_layernorm.scale", "blocks") ==
        "model.layers.2.post_feedforward_layernorm.weight");
  CHECK(llm::hf_tensor_name("final_norm.scale", "blocks") == "model.norm.weight");
  CHECK_THROWS_WITH(llm::hf_tensor_name("trf_blocks.0.att.mask", "trf_blocks"), Catch::Contains("no Hugging Face name"));

  for (const auto& name : kTinyConfigs) {
    INFO(name);
    auto model = seeded_model(name);
    const auto blocks = name.find("gemma") != std::string::npos ? "blocks" : "trf_blocks";
    llm::NamedTensors hf;
    for (const auto& [key, tensor] : llm::state_dict(*model)) hf.emplace_back(llm::hf_tensor_name(key, blocks), tensor);
    torch::manual_seed(7);
    auto other = llm::ModelConfig::load("configs/" + name + ".json").make();
    other->load_weights(hf, "hf.safetensors");
    const auto ids = torch::randint(0, 500, {1, 6}, torch::kLong);
    CHECK(torch::equal(other->forward(ids), model->forward(ids)));

    // Without lm_head.weight the head is the token embeddings (tie_word_embeddings).
    hf.erase(std::remove_if(hf.begin(), hf.end(), [](const auto& item) { return item.first == "lm_head.weight"; }),
             hf.end());
    other->load_weights(hf, "tied.safetensors");
    const auto ours = llm::state_dict(*model);
    CHECK(torch::equal(other->head()->weight, llm::find_tensor(ours, "tok_emb.weight", name)));

    hf.emplace_back("model.layers.0.self_attn.rotary_emb.inv_freq", torch::ones({4}));
    CHECK_THROWS_WITH(other->load_weights(hf, "extra.safetensors"),
                      Catch::Contains("extra.safetensors: unexpected key 'model.layers.0.self_attn.rotary_emb.inv_freq'"));
    hf.erase(hf.begin() + 1);  // the first block's first tensor
    CHECK_THROWS_WITH(other->load_weights(hf, "cut.safetensors"), Catch::Contains("the file lacks it"));
  }
}

TEST_CASE("a model written in Hugging Face's layout reads back as the same model") {
  for (const auto& name : kTinyConfigs) {
    INFO(name);
    auto model = seeded_model(name);
    const auto dir = llm::test::temp_dir("hf-" + name);
    llm::save_hugging_face(dir / "model.safetensors", *model);

    const llm::HfModelFolder folder(dir);
    CHECK(folder.config().family() == model->family());
    auto loaded = folder.load_model();
    CHECK(loaded->config_json() == model->config_json());  // config.json's keys read back
    const auto expected = llm::state_dict(*model);
    const auto got = llm::state_dict(*loaded);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(got[i].first);
      CHECK(got[i].first == expected[i].first);
      CHECK(torch::equal(got[i].second, expected[i].second));
    }
    // The untied head is written as lm_head.weight; a tied one is left out, as the Hub's files do.
    const auto written = llm::load_tensors(dir / "model.safetensors");
    CHECK(std::any_of(written.begin(), written.end(), [](const auto& t) { return t.first == "lm_head.weight"; }));
    const auto decoder = std::dynamic_pointer_cast<llm::RopeDecoderImpl>(loaded.ptr());
    REQUIRE(decoder);
    decoder->out_head->weight.data().copy_(decoder->tok_emb->weight);
    llm::save_hugging_face(dir / "model.safetensors", *decoder);
    const auto tied = llm::load_tensors(dir / "model.safetensors");
    CHECK(std::none_of(tied.begin(), tied.end(), [](const auto& t) { return t.first == "lm_head.weight"; }));
    CHECK(llm::HfModelFolder(dir).load_model()->config_json() == model->config_json());
    CHECK_THROWS_WITH(llm::HfModelFolder(dir).tokenizer(), Catch::Contains("no tokenizer; expected tokenizer.json"));
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("print(model) as PyTorch prints the course's classes") {
  // The text of standalone-qwen3.ipynb's cell 17 at tiny-qwen3's sizes: the course's
  // class names, nn.Linear's and nn.Embedding's own text, equal blocks folded.
  const std::string qwen3 = R"(Qwen3Model(
  (tok_emb): Embedding(500, 64)
  (trf_blocks): ModuleList(
    (0-1): 2 x TransformerBlock(
      (att): GroupedQueryAttention(
        (W_query): Linear(in_features=64, out_features=128, bias=False)
        (W_key): Linear(in_features=64, out_features=64, bias=False)
        (W_value): Linear(in_features=64, out_features=64, bias=False)
        (out_proj): Linear(in_features=128, out_features=64, bias=False)
        (q_norm): RMSNorm()
        (k_norm): RMSNorm()
      )
      (ff): FeedForward(
        (fc1): Linear(in_features=64, out_features=96, bias=False)
        (fc2): Linear(in_features=64, out_features=96, bias=False)
        (fc3): Linear(in_features=96, out_features=64, bias=False)
      )
      (norm1): RMSNorm()
      (norm2): RMSNorm()
    )
  )
  (final_norm): RMSNorm()
  (out_head): Linear(in_features=64, out_features=500, bias=False)
))";
  CHECK(llm::module_repr(*seeded_model("tiny-qwen3")) == qwen3);

  // Llama's norms are PyTorch's nn.RMSNorm, which prints its shape and eps.
  const auto llama = llm::module_repr(*seeded_model("tiny-llama32"));
  CHECK(llama.rfind("Llama3Model(\n  (tok_emb): Embedding(500, 64)\n  (trf_blocks): ModuleList(\n    (0-1): 2 x "
                    "TransformerBlock(\n",
                    0) == 0);
  CHECK(llama.find("      (norm1): RMSNorm((64,), eps=1e-05, elementwise_affine=True)\n") != std::string::npos);

  // The experts of a MoE feed-forward fold as well; a list of unequal modules folds
  // only its equal neighbours.
  const auto moe = llm::module_repr(*seeded_model("tiny-qwen3-moe"));
  CHECK(moe.find("      (ff): MoEFeedForward(\n        (gate): Linear(") != std::string::npos);
  CHECK(moe.find("        (fc1): ModuleList(\n          (0-3): 4 x Linear(") != std::string::npos);
  llm::ModuleListOf<llm::Linear> list;
  list->push_back(llm::Linear(2, 3));
  list->push_back(llm::Linear(2, 3));
  list->push_back(llm::Linear(3, 2));
  CHECK(llm::module_repr(*list) ==
        "ModuleList(\n  (0-1): 2 x Linear(in_features=2, out_features=3, bias=True)\n"
        "  (2): Linear(in_features=3, out_features=2, bias=True)\n)");
  CHECK(llm::module_repr(*llm::ModuleListOf<llm::Linear>()) == "ModuleList()");
}
