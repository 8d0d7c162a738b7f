// The decode kernels (matvec.h) and the Linear layers that use them: every instruction
// set this CPU runs against a float64 product of the same 16- or 8-bit weights, int8's
// quantisation error, and every family decoding with converted weights, cached equal
// to uncached.
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"
#include "llm/io/state_dict.h"
#include "llm/model/generate.h"
#include "llm/model/model_config.h"
#include "llm/nn/linear.h"
#include "llm/nn/matvec.h"

using llm::test::check_close;

namespace {

// Sizes that leave every tail: rows not a multiple of four (1, 7, GPT-2's 50,257),
// inputs not a multiple of 8 or 16 lanes, one input, and a GPT-2 projection.
const std::vector<std::pair<int64_t, int64_t>> kShapes = {{1, 1},    {3, 7},    {4, 8},   {5, 17},    {13, 33},
                                                          {64, 768}, {257, 100}, {7, 1},  {50257, 20}, {1, 41}};

// y = W x + bias in float64, from the float32 values of the weights as stored.
torch::Tensor reference(const torch::Tensor& wide_weight, const torch::Tensor& x, const torch::Tensor& bias) {
  auto y = wide_weight.to(torch::kDouble).mv(x.to(torch::kDouble));
  return (bias.defined() ? y + bias.to(torch::kDouble) : y).to(torch::kFloat);
}

// A float32 sum of `in` products is within in * eps of the sum of the products'
// magnitudes (each addition rounds by at most eps of a partial sum).
llm::test::Tolerance sum_tolerance(int64_t in, double largest_magnitude_sum = 1.0) {
  const double eps = 6e-8 * static_cast<double>(in);
  return {eps * largest_magnitude_sum, eps};
}

// A config of every model family.
const std::vector<std::string> kFamilies = {"tiny",       "tiny-gqa",       "tiny-llama32",
                                            "tiny-qwen3", "tiny-qwen3-moe", "tiny-gemma3"};

double magnitude_sum(const torch::Tensor& wide_weight, const torch::Tensor& x) {
  return wide_weight.abs().mv(x.abs()).max().item<double>();
}

}  // namespace

TEST_CASE("bfloat16 matrix-vector products, on every instruction set this CPU runs") {
  const auto isas = llm::supported_kernel_isas();
  REQUIRE(isas.front() == llm::KernelIsa::kPortable);
  CHECK(isas.back() == llm::best_kernel_isa());
  torch::manual_seed(1);
  for (const auto& [out, in] : kShapes) {
    const auto weight = torch::randn({out, in}).to(torch::kBFloat16);
    const auto x = torch::randn({in});
    const auto bias = torch::randn({out});
    for (const auto isa : isas) {
      INFO(std::string(llm::kernel_isa_name(isa)) << " [" << out << ", " << in << "]");
      for (const bool with_bias : {false, true}) {
        auto y = torch::empty({out});
        llm::matvec_bf16(weight.data_ptr<c10::BFloat16>(), x.data_ptr<float>(),
                         with_bias ? bias.data_ptr<float>() : nullptr, y.data_ptr<float>(), out, in, isa);
        check_close(y, reference(weight.to(torch::kFloat), x, with_bias ? bias : torch::Tensor()), "bf16 matvec",
                    sum_tolerance(in, magnitude_sum(weight.to(torch::kFloat), x)));
      }
    }
  }
}

TEST_CASE("int8 matrix-vector products with a scale per row, on every instruction set this CPU runs") {
  torch::manual_seed(2);
  for (const auto& [out, in] : kShapes) {
    const auto [q, scale] = llm::quantize_int8(torch::randn({out, in}));
    const auto x = torch::randn({in});
    const auto bias = torch::randn({out});
    const auto wide = q.to(torch::kFloat) * scale.unsqueeze(1);
    for (const auto isa : llm::supported_kernel_isas()) {
      INFO(std::string(llm::kernel_isa_name(isa)) << " [" << out << ", " << in << "]");
      auto y = torch::empty({out});
      llm::matvec_int8(q.data_ptr<int8_t>(), scale.data_ptr<float>(), x.data_ptr<float>(), bias.data_ptr<float>(),
                       y.data_ptr<float>(), out, in, isa);
      check_close(y, reference(wide, x, bias), "int8 matvec", sum_tolerance(in, magnitude_sum(wide, x)));
    }
  }
}

TEST_CASE("the rows split over LibTorch's threads: each chunk on a thread of its own, the products those of one thread") {
  const int before = at::get_num_threads();
  // Every row once, in chunks of at least the grain, on as many threads as --threads.
  for (const int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    for (const auto& shape : std::vector<std::pair<int64_t, int64_t>>{{100, 1}, {7, 2}, {5, 8}, {1, 1}}) {
      const int64_t out = shape.first, grain = shape.second;
      INFO(threads << " threads, " << out << " rows, grain " << grain);
      std::mutex mutex;  // the body runs on other threads: it records, and the checks come after
      std::vector<int> seen(out, 0);
      std::set<std::thread::id> workers;
      bool short_chunk = false;  // one shorter than the grain that is not the last
      llm::parallel_rows(out, grain, [&](int64_t begin, int64_t end) {
        const std::lock_guard<std::mutex> lock(mutex);
        short_chunk = short_chunk || (end - begin < grain && end != out);
        for (int64_t o = begin; o < end; ++o) ++seen[o];
        workers.insert(std::this_thread::get_id());
      });
      CHECK_FALSE(short_chunk);
      CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
      CHECK(static_cast<int64_t>(workers.size()) == std::min<int64_t>(threads, (out + grain - 1) / grain));
    }
  }
  // Each row is one thread's sum, whichever thread: the same bits on 1, 2 and 3.
  torch::manual_seed(4);
  const auto weight = torch::randn({50257, 40}).to(torch::kBFloat16);
  const auto [q, scale] = llm::quantize_int8(torch::randn({4099, 768}));
  const auto x = torch::randn({768});
  std::vector<torch::Tensor> bf16, int8;
  for (const int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    auto y = torch::full({50257}, std::numeric_limits<float>::quiet_NaN());
    llm::matvec_bf16(weight.data_ptr<c10::BFloat16>(), x.data_ptr<float>(), nullptr, y.data_ptr<float>(), 50257, 40);
    bf16.push_back(y);
    auto z = torch::full({4099}, std::numeric_limits<float>::quiet_NaN());
    llm::matvec_int8(q.data_ptr<int8_t>(), scale.data_ptr<float>(), x.data_ptr<float>(), nullptr, z.data_ptr<float>(),
                     4099, 768);
    int8.push_back(z);
  }
  at::set_num_threads(before);
  CHECK_FALSE(bf16[0].isnan().any().item<bool>());
  CHECK_FALSE(int8[0].isnan().any().item<bool>());
  for (size_t i = 1; i < bf16.size(); ++i) {
    CHECK(torch::equal(bf16[i], bf16[0]));
    CHECK(torch::equal(int8[i], int8[0]));
  }
}

TEST_CASE("NaN and infinite inputs give torch::mv's NaN and infinite outputs, on every instruction set") {
  torch::manual_seed(4);
  const int64_t out = 9, in = 37;
  auto x = torch::randn({in});
  x[3] = std::numeric_limits<float>::quiet_NaN();
  auto y_inf = torch::randn({in});
  y_inf[30] = std::numeric_limits<float>::infinity();
  const auto weight = torch::randn({out, in}).to(torch::kBFloat16);
  const auto [q, scale] = llm::quantize_int8(torch::randn({out, in}));
  for (const auto isa : llm::supported_kernel_isas()) {
    INFO(llm::kernel_isa_name(isa));
    for (const auto& input : {x, y_inf}) {
      auto y = torch::empty({out});
      llm::matvec_bf16(weight.data_ptr<c10::BFloat16>(), input.data_ptr<float>(), nullptr, y.data_ptr<float>(), out,
                       in, isa);
      auto expected = torch::mv(weight.to(torch::kFloat), input);
      CHECK(torch::equal(y.isnan(), expected.isnan()));
      CHECK(torch::equal(y.isinf(), expected.isinf()));
      const auto zeros = torch::zeros({out});
      CHECK(torch::equal(torch::where(y.isinf(), y.sign(), zeros), torch::where(expected.isinf(), expected.sign(), zeros)));
      llm::matvec_int8(q.data_ptr<int8_t>(), scale.data_ptr<float>(), input.data_ptr<float>(), nullptr,
                       y.data_ptr<float>(), out, in, isa);
      expected = torch::mv(q.to(torch::kFloat), input) * scale;
      CHECK(torch::equal(y.isnan(), expected.isnan()));
      CHECK(torch::equal(y.isinf(), expected.isinf()));
    }
    CHECK(torch::isnan(torch::mv(weight.to(torch::kFloat), x)).all().item<bool>());  // NaN reaches every row
  }
}

TEST_CASE("int8 quantisation: per output row, symmetric, within half a step") {
  auto weight = torch::randn({6, 40});
  weight[2].zero_();   // a row of zeros keeps scale 1
  weight[3] *= 1000;   // rows have scales of their own
  const auto [q, scale] = llm::quantize_int8(weight);
  REQUIRE(q.scalar_type() == torch::kChar);
  REQUIRE(scale.sizes() == torch::IntArrayRef({6}));
  CHECK(scale[2].item<float>() == 1.0F);
  CHECK(q.abs().amax(1).eq(127).logical_or(scale.eq(1)).all().item<bool>());  // each row's largest is +-127
  const auto error = (q.to(torch::kFloat) * scale.unsqueeze(1) - weight).abs();
  CHECK(error.le(scale.unsqueeze(1) * 0.5001).all().item<bool>());
  CHECK_THROWS_WITH(llm::quantize_int8(torch::ones({3})), Catch::Contains("expected a floating-point weight [out, in]"));
}

TEST_CASE("a converted Linear: one row through the kernels equals the same row through forward") {
  // A float32 model's Linear and a bfloat16 model's (whose inputs are bfloat16).
  for (const auto model_dtype : {torch::kFloat, torch::kBFloat16}) {
    for (const auto dtype : {llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
      INFO(c10::toString(model_dtype) << " model, " << llm::weights_dtype_name(dtype) << " weights");
      torch::manual_seed(3);
      llm::Linear linear(48, 20, /*bias=*/true, model_dtype);
      const auto float_bytes = llm::linear_weight_bytes(*linear);
      linear->convert_weight(dtype);
      CHECK_FALSE(linear->weight.requires_grad());
      if (model_dtype == torch::kFloat) {
        CHECK(llm::linear_weight_bytes(*linear) < float_bytes * (dtype == llm::WeightsDtype::kInt8 ? 0.35 : 0.6));
      }
      torch::NoGradGuard no_grad;
      const auto x = torch::randn({1, 1, 48}).to(model_dtype);
      const auto row = linear->forward_matvec(x);
      CHECK(row.scalar_type() == model_dtype);
      CHECK(row.sizes() == torch::IntArrayRef({1, 1, 20}));
      const auto tol = model_dtype == torch::kFloat ? sum_tolerance(48, 10.0) : llm::test::Tolerance{2e-2, 2e-2};
      check_close(row.to(torch::kFloat), linear->forward(x).to(torch::kFloat), "one row", tol);
      CHECK(linear->forward(torch::randn({2, 5, 48}).to(model_dtype)).sizes() ==
            torch::IntArrayRef({2, 5, 20}));  // a prefill widens the weight
    }
  }
}

TEST_CASE("a prefill through a converted Linear widens its weight a block of rows at a time: the product of the "
          "whole weight widened") {
  // 50,257 rows of 300 take four blocks of 13,981 rows, the last one short.
  for (const auto dtype : {llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
    INFO(llm::weights_dtype_name(dtype));
    torch::manual_seed(4);
    llm::Linear linear(300, 50257);
    linear->convert_weight(dtype);
    torch::NoGradGuard no_grad;
    const auto x = torch::randn({2, 3, 300});
    const auto y = linear->forward(x);
    REQUIRE(y.sizes() == torch::IntArrayRef({2, 3, 50257}));
    const auto wide = linear->weight_as(torch::kFloat);
    const double magnitude = wide.abs().mm(x.reshape({-1, 300}).abs().t()).max().item<double>();
    check_close(y, torch::linear(x, wide, linear->bias), "blocks", sum_tolerance(300, magnitude));
    CHECK(torch::equal(linear->rows_as(13981, 5, torch::kFloat), wide.narrow(0, 13981, 5)));
  }
  CHECK_THROWS_WITH(llm::parse_weights_dtype("fp8"), Catch::Contains("expected float32, bfloat16 or int8"));
}

TEST_CASE("every family decodes with bfloat16 and int8 weights: cached equals uncached, greedy and sampled") {
  for (const auto& name : kFamilies) {
    for (const auto dtype : {llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
      INFO(name << " " << llm::weights_dtype_name(dtype));
      torch::manual_seed(123);
      auto model = llm::ModelConfig::load("configs/" + name + ".json").make();
      model->eval();
      REQUIRE(llm::convert_linear_weights(*model, dtype) > 0);
      torch::NoGradGuard no_grad;
      const auto prompt = torch::randint(0, model->shape().vocab_size, {1, 5}, torch::kLong);
      const int64_t new_tokens = model->shape().context_length;  // past the context window
      for (const double temperature : {0.0, 1.5}) {
        const auto sampling = llm::SamplingOptions(new_tokens).temperature(temperature).top_k(20);
        torch::manual_seed(5);
        const auto uncached = llm::generate(*model, prompt, llm::SamplingOptions(sampling).kv_cache(false));
        torch::manual_seed(5);
        CHECK(torch::equal(llm::generate(*model, prompt, sampling), uncached));
      }
    }
  }
}

namespace {

// The same parameters, dtypes and int8 scales, bit for bit.
void check_same_weights(const torch::nn::Module& actual, const torch::nn::Module& expected, llm::WeightsDtype dtype) {
  const auto want = expected.named_parameters(), got = actual.named_parameters();
  REQUIRE(got.size() == want.size());
  for (const auto& item : want) {
    INFO(item.key());
    REQUIRE(got.contains(item.key()));
    CHECK(got[item.key()].scalar_type() == item.value().scalar_type());
    CHECK(torch::equal(got[item.key()], item.value()));
  }
  const auto modules = actual.modules(), modules_expected = expected.modules();
  REQUIRE(modules.size() == modules_expected.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    const auto* linear = modules[i]->as<llm::LinearImpl>();
    if (linear == nullptr) continue;
    const auto& scale = modules_expected[i]->as<llm::LinearImpl>()->weight_scale;
    REQUIRE(linear->weight_scale.defined() == (dtype == llm::WeightsDtype::kInt8));
    if (scale.defined()) CHECK(torch::equal(linear->weight_scale, scale));
  }
}

}  // namespace

TEST_CASE("a model built for bfloat16 or int8 decoding converts each layer as it draws it: the weights of one "
          "converted after it was built, in every family") {
  for (const auto& name : kFamilies) {
    for (const auto dtype : {llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
      INFO(name << " " << llm::weights_dtype_name(dtype));
      const auto config = llm::ModelConfig::load("configs/" + name + ".json");
      torch::manual_seed(123);
      auto after = config.make();
      REQUIRE(llm::convert_linear_weights(*after, dtype) > 0);
      torch::manual_seed(123);
      const auto converted = [&] {
        const llm::ConvertLinearsWhenBuilt when_built(dtype);
        return config.make();
      }();
      check_same_weights(*converted, *after, dtype);
      llm::Linear plain(4, 3);  // the guard has gone: a Linear built now keeps float32
      CHECK(plain->weight.scalar_type() == torch::kFloat);
    }
  }
}

TEST_CASE("weights loaded into a converted model are converted as each is copied in: those of one loaded, "
          "then converted") {
  for (const auto& name : kFamilies) {
    const auto config = llm::ModelConfig::load("configs/" + name + ".json");
    torch::manual_seed(7);
    const auto trained = config.make();
    // The course's names, and Hugging Face's in float32 and bfloat16 (GPT-2's layout has
    // no grouped-query attention).
    std::vector<std::pair<std::string, llm::NamedTensors>> files = {{"state dict", llm::state_dict(*trained)}};
    if (name != "tiny-gqa") {
      llm::NamedTensors hf_bf16;
      for (const auto& [key, tensor] : trained->hf_weights()) hf_bf16.emplace_back(key, tensor.to(torch::kBFloat16));
      files.emplace_back("hf", trained->hf_weights());
      files.emplace_back("hf bfloat16", std::move(hf_bf16));
    }
    for (const auto& [file, tensors] : files) {
      for (const auto dtype : {llm::WeightsDtype::kBFloat16, llm::WeightsDtype::kInt8}) {
        INFO(name << " " << file << " " << llm::weights_dtype_name(dtype));
        auto after = config.make();
        after->load_weights(tensors, file);
        REQUIRE(llm::convert_linear_weights(*after, dtype) > 0);
        auto converted = [&] {
          const llm::ConvertLinearsWhenBuilt when_built(dtype);
          return config.make();
        }();
        converted->load_weights(tensors, file);
        check_same_weights(*converted, *after, dtype);
      }
    }
  }
}

TEST_CASE("an int8 Linear takes only floating-point weights") {
  const llm::ConvertLinearsWhenBuilt when_built(llm::WeightsDtype::kInt8);
  llm::Linear linear(4, 3);
  const llm::NamedTensors ints = {{"weight", torch::ones({3, 4}, torch::kChar)}, {"bias", torch::zeros({3})}};
  CHECK_THROWS_WITH(llm::load_state_dict(*linear, ints, "ints"),
                    Catch::Contains("'weight' is Char, expected a floating-point tensor"));
}
