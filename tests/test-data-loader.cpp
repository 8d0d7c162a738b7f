#include <nlohmann/json.hpp>

#include "helpers.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/text/distributed_sampler.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/numpy_random.h"

namespace {
std::shared_ptr<llm::SlidingWindowDataset> dataset(int64_t n, int64_t max_length, int64_t stride) {
  return std::make_shared<llm::SlidingWindowDataset>(torch::arange(n), max_length, stride);
}
}  // namespace

TEST_CASE("windows are the lesson's input-target pairs") {
  const auto data = dataset(10, 4, 4);  // the lesson's range(0, 10 - 4, 4): starts 0 and 4
  REQUIRE(data->size() == 2);
  const auto [x, y] = data->get(1);
  CHECK(torch::equal(x, torch::arange(4, 8)));
  CHECK(torch::equal(y, torch::arange(5, 9)));
  CHECK(dataset(10, 4, 1)->size() == 6);
  CHECK(dataset(10, 4, 5)->size() == 2);
  CHECK(dataset(5, 4, 1)->size() == 1);
  CHECK_THROWS_AS(data->get(2), llm::Error);
}

TEST_CASE("the data loader gives PyTorch DataLoader's batches and generator state") {
  const auto golden = llm::load_tensors(llm::test::golden("ch02-data-loader.pt"));
  struct Case {
    std::string name;
    int64_t max_length, stride, batch_size;
    bool shuffle, drop_last;
  };
  for (const auto& c : {Case{"shuffle", 4, 1, 8, true, true}, Case{"shuffle_keep_last", 5, 3, 7, true, false},
                        Case{"ordered", 4, 4, 8, false, true}}) {
    INFO(c.name);
    torch::manual_seed(123);
    const llm::DataLoader loader(dataset(200, c.max_length, c.stride),
                                 llm::DataLoaderOptions(c.batch_size).shuffle(c.shuffle).drop_last(c.drop_last));
    for (int epoch = 0; epoch < 2; ++epoch) {
      const auto key = [&](const char* what) { return fmt::format("{}/epoch{}/{}", c.name, epoch, what); };
      std::vector<torch::Tensor> inputs, targets;
      for (const auto& batch : loader) {
        inputs.push_back(batch.inputs);
        targets.push_back(batch.targets);
      }
      CHECK(static_cast<int64_t>(inputs.size()) == llm::find_tensor(golden, key("batches"), "golden").item<int64_t>());
      CHECK(static_cast<int64_t>(inputs.size()) == loader.size());
      CHECK(torch::equal(torch::cat(inputs), llm::find_tensor(golden, key("inputs"), "golden")));
      CHECK(torch::equal(torch::cat(targets), llm::find_tensor(golden, key("targets"), "golden")));
      // The next draw equals PyTorch's only if the loader drew exactly what DataLoader draws.
      CHECK(torch::equal(torch::rand(3), llm::find_tensor(golden, key("next_rand"), "golden")));
    }
  }
}

TEST_CASE("the first batch of the-verdict is the lesson's") {
  llm::test::data_or_skip("the-verdict.txt");
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  const auto ids = llm::BpeTokenizer::gpt2().encode(llm::read_text_file(llm::data_file("the-verdict.txt")));
  const llm::DataLoader loader(std::make_shared<llm::SlidingWindowDataset>(torch::tensor(ids), 4, 1),
                               llm::DataLoaderOptions(1).shuffle(false));
  const auto batch = *loader.begin();
  CHECK(torch::equal(batch.inputs, torch::tensor({{40, 367, 2885, 1464}}, torch::kLong)));
  CHECK(torch::equal(batch.targets, torch::tensor({{367, 2885, 1464, 1807}}, torch::kLong)));
}

TEST_CASE("impossible sizes are rejected with what was expected") {
  CHECK_THROWS_WITH(dataset(10, 4, 0), Catch::Contains("stride must be positive, got 0"));
  CHECK_THROWS_WITH(dataset(10, 0, 1), Catch::Contains("max_length must be positive, got 0"));
  CHECK_THROWS_WITH(dataset(4, 4, 1), Catch::Contains("the text has 4 tokens. max_length 4 needs at least 5"));
  CHECK_THROWS_WITH(llm::DataLoader(dataset(10, 4, 1), llm::DataLoaderOptions(0)),
                    Catch::Contains("batch_size must be positive, got 0"));
  CHECK_THROWS_WITH(llm::DataLoader(dataset(10, 4, 1), llm::DataLoaderOptions(7)),
                    Catch::Contains("6 windows make no batch of 7"));
  CHECK(llm::DataLoader(dataset(10, 4, 1), llm::DataLoaderOptions(7).drop_last(false)).size() == 1);
}

TEST_CASE("the distributed sampler gives each rank torch's DistributedSampler indices") {
  const auto golden = llm::load_tensors(llm::test::golden("distributed-sampler.pt"));
  int cases = 0;
  for (int c = 0;; ++c) {
    const auto params_name = fmt::format("{}/params", c);
    const auto found =
        std::find_if(golden.begin(), golden.end(), [&](const auto& e) { return e.first == params_name; });
    if (found == golden.end()) break;
    const auto p = found->second;
    const int64_t size = p[0].item<int64_t>(), replicas = p[1].item<int64_t>();
    const bool shuffle = p[2].item<int64_t>() != 0, drop_last = p[4].item<int64_t>() != 0;
    for (int64_t rank = 0; rank < replicas; ++rank) {
      const llm::DistributedSampler sampler(size, replicas, rank, shuffle, p[3].item<int64_t>(), drop_last);
      for (int64_t epoch = 0; epoch < 2; ++epoch) {
        const auto& expected = llm::find_tensor(golden, fmt::format("{}/{}/{}", c, rank, epoch), "golden");
        INFO("case " << c << ", rank " << rank << ", epoch " << epoch);
        CHECK(sampler.num_samples() == expected.numel());
        CHECK(torch::equal(sampler.indices(epoch), expected));
      }
    }
    ++cases;
  }
  CHECK(cases == 7);
  CHECK_THROWS_WITH(llm::DistributedSampler(10, 2, 2), Catch::Contains("rank 2 is outside 0..1"));
}

TEST_CASE("a data loader with a distributed sampler reads this rank's share, epoch by epoch") {
  const auto data = dataset(40, 4, 4);  // 9 windows
  const auto sampler = std::make_shared<llm::DistributedSampler>(data->size(), 2, 1, true, 123);
  const llm::DataLoader loader(data, llm::DataLoaderOptions(2).drop_last(true).sampler(sampler));
  CHECK(loader.size() == 2);  // 5 of the 9 windows (one repeated as padding), in batches of 2
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    loader.set_epoch(epoch);
    const auto it = loader.begin();
    CHECK(torch::equal(it.order(), sampler->indices(epoch)));
    CHECK(torch::equal(it->inputs.select(1, 0), sampler->indices(epoch).slice(0, 0, 2) * 4));
  }
}

// NumPy's legacy RandomState, which pandas' DataFrame.sample draws from (lesson 6.2
// balances and splits the spam data with it): the golden holds NumPy's own draws and
// pandas' samples (scripts/reference/numpy_sample.py).
TEST_CASE("NumpyRandomState draws what NumPy's RandomState and pandas' sample draw") {
  const auto golden = nlohmann::json::parse(llm::read_file(llm::test::golden("numpy-sample.json")));
  const auto seed = golden["seed"].get<uint32_t>();
  llm::NumpyRandomState raw(seed);
  for (const auto expected : golden["first_uint32"].get<std::vector<uint32_t>>()) CHECK(raw.next_uint32() == expected);
  const auto cases = golden["cases"];
  REQUIRE(cases.size() == 6);
  for (const auto& c : cases) {
    const auto n = c["n"].get<int64_t>();
    INFO(c["call"].get<std::string>() << " of " << n);
    llm::NumpyRandomState state(seed);
    const auto values = c["call"] == "permutation" ? state.permutation(n)
                                                   : state.choice_without_replacement(n, c["size"].get<int64_t>());
    CHECK(values == c["values"].get<std::vector<int64_t>>());
  }
  // Above 2^32, each draw takes two 32-bit outputs, high then low.
  llm::NumpyRandomState wide(seed), narrow(seed);
  const uint64_t high = narrow.next_uint32(), low = narrow.next_uint32();
  const uint64_t max = (uint64_t{1} << 40) - 1;  // mask = max: the first draw is kept
  CHECK(wide.interval(max) == (((high << 32) | low) & max));
  CHECK_THROWS_AS(wide.choice_without_replacement(5, 6), llm::Error);
}
