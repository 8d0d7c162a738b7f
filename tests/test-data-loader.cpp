#include <nlohmann/json.hpp>

#include <numeric>

#include "helpers.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/labelled_examples.h"
#include "llm/text/classification_dataset.h"
#include "llm/text/data_loader.h"
#include "llm/text/distributed_sampler.h"
#include "llm/text/instruction_data.h"
#include "llm/text/spam_corpora.h"
#include "llm/text/token_file.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/numpy_random.h"

namespace {
std::shared_ptr<llm::SlidingWindowDataset> dataset(int64_t n, int64_t max_length, int64_t stride) {
  return std::make_shared<llm::SlidingWindowDataset>(torch::arange(n), max_length, stride);
}

// A token file of the ids 0..n-1.
std::shared_ptr<const llm::TokenFile> token_file(const std::filesystem::path& path, int64_t n,
                                                 int64_t vocab_size = 50257) {
  llm::TokenFileWriter writer(path, vocab_size, "fnv1a64:test");
  std::vector<int64_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  writer.append(ids);
  writer.add_document();
  writer.commit("ids 0..n-1");
  return std::make_shared<const llm::TokenFile>(path);
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
    int64_t num_samples;  // drawn with replacement; 0: a permutation
  };
  // The same windows from a token file: what training on a prepared corpus reads.
  const auto file = token_file(llm::test::temp_dir("loader-golden") / "ids.bin", 200);
  for (const auto& [c, from_file] : std::vector<std::pair<Case, bool>>{
           {{"shuffle", 4, 1, 8, true, true, 0}, false},
           {{"shuffle_keep_last", 5, 3, 7, true, false, 0}, false},
           {{"ordered", 4, 4, 8, false, true, 0}, false},
           {{"shuffle_keep_last", 5, 3, 7, true, false, 0}, true},
           {{"random", 4, 1, 8, true, true, 50}, false},
           {{"random", 4, 1, 8, true, true, 50}, true},
           {{"random_keep_last", 5, 1, 6, true, false, 75}, true}}) {
    INFO(c.name << (from_file ? " from a token file" : ""));
    torch::manual_seed(123);
    auto options = llm::DataLoaderOptions(c.batch_size).shuffle(c.shuffle).drop_last(c.drop_last);
    if (c.num_samples > 0) options.replacement(true).num_samples(c.num_samples);
    std::shared_ptr<const llm::Dataset> windows = dataset(200, c.max_length, c.stride);
    if (from_file) windows = std::make_shared<llm::TokenFileDataset>(file, 0, 200, c.max_length, c.stride);
    const llm::DataLoader loader(windows, options);
    for (int epoch = 0; epoch < 2; ++epoch) {
      const auto key = [&, &name = c.name](const char* what) { return fmt::format("{}/epoch{}/{}", name, epoch, what); };
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

TEST_CASE("a token file holds its ids and header, and a bad one is refused naming it") {
  const auto dir = llm::test::temp_dir("token-file");
  const auto file = token_file(dir / "ids.bin", 70000, 70000);  // past uint16: 4 bytes an id
  CHECK(file->header().token_bytes == 4);
  CHECK(file->header().tokens == 70000);
  CHECK(file->header().documents == 1);
  const auto ids = file->ids();
  CHECK(ids.front() == 0);
  CHECK(ids.back() == 69999);
  const auto small = token_file(dir / "small.bin", 300);
  CHECK(small->header().token_bytes == 2);
  CHECK(std::filesystem::file_size(dir / "small.bin") == llm::TokenFileHeader::kBytes + 600);
  CHECK(llm::read_file_start(dir / "small.bin", 20) == "libtorch-llm tokens\n");
  CHECK(llm::is_token_file(dir / "small.bin"));
  // A window read from the middle, widened to int64.
  const llm::TokenFileDataset windows(small, 10, 300, 4, 4);
  CHECK(windows.size() == 72);  // range(0, 290 - 4, 4)
  const auto [x, y] = windows.get_batch(torch::tensor({1, 71}));
  CHECK(torch::equal(x, torch::tensor({{14, 15, 16, 17}, {294, 295, 296, 297}})));
  CHECK(torch::equal(y, torch::tensor({{15, 16, 17, 18}, {295, 296, 297, 298}})));
  // An id outside the vocabulary is refused before it is written; nothing is left.
  {
    llm::TokenFileWriter writer(dir / "bad.bin", 100, "fnv1a64:test");
    CHECK_THROWS_WITH(writer.append({5, 100}), Catch::Contains("id 100 is outside the vocabulary of 100 tokens"));
  }
  CHECK(!std::filesystem::exists(dir / "bad.bin"));
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 2);
  // Cut short, or not a token file at all: one line naming the file.
  auto bytes = llm::read_file(dir / "small.bin");
  llm::write_file_atomic(dir / "short.bin", bytes.substr(0, bytes.size() - 1));
  CHECK_THROWS_WITH(llm::TokenFile(dir / "short.bin"),
                    Catch::Contains("short.bin") && Catch::Contains("but a header and 300 ids of 2 bytes make 1624"));
  llm::write_file_atomic(dir / "text.bin", "Every effort moves you");
  CHECK(!llm::is_token_file(dir / "text.bin"));
  CHECK_THROWS_WITH(llm::TokenFile(dir / "text.bin"), Catch::Contains("does not start with a token file's header"));
  // An id beyond the vocabulary (a forged or damaged file) is named where it lies.
  auto forged = bytes;
  forged.replace(forged.size() - 2, 2, "\xff\xff");
  llm::write_file_atomic(dir / "forged.bin", forged);
  CHECK_THROWS_WITH(llm::TokenFile(dir / "forged.bin").ids(),
                    Catch::Contains("forged.bin': id 65535 at position 299 is not in its vocabulary of"));
  bytes.replace(bytes.find("\"version\":1"), 11, "\"version\":9");
  llm::write_file_atomic(dir / "v9.bin", bytes);
  CHECK_THROWS_WITH(llm::TokenFile(dir / "v9.bin"), Catch::Contains("it is version 9, this program reads version 1"));
  CHECK_THROWS_AS(llm::TokenFileDataset(small, 0, 4, 4, 1), llm::Error);  // no window of 5
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
                    Catch::Contains("6 examples make no batch of 7"));
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

// Lesson 6.2's shapes: 747 spam and 747 ham make 1045 / 149 / 300 rows.
TEST_CASE("balancing and splitting give the lesson's sizes") {
  std::vector<llm::LabelledText> table;
  for (int i = 0; i < 4825 + 747; ++i) table.push_back({i % 7 == 3 && i < 7 * 747 ? "spam" : "ham", std::to_string(i)});
  const auto counts = llm::value_counts(table);
  REQUIRE(counts.size() == 2);
  CHECK(counts[0] == std::pair<std::string, int64_t>{"ham", 4825});
  CHECK(counts[1] == std::pair<std::string, int64_t>{"spam", 747});
  const auto balanced = llm::create_balanced_dataset(table, 123, "t");
  REQUIRE(balanced.size() == 1494);
  CHECK(std::count_if(balanced.begin(), balanced.end(), [](const auto& r) { return r.label == 1; }) == 747);
  CHECK(balanced.front().label == 0);  // the ham sample first, then every spam row in order
  std::vector<std::string> spam_texts, tail_texts;
  for (const auto& row : table) {
    if (row.label == "spam") spam_texts.push_back(row.text);
  }
  for (size_t i = 747; i < balanced.size(); ++i) tail_texts.push_back(balanced[i].text);
  CHECK(tail_texts == spam_texts);
  const auto splits = llm::random_split(balanced, 0.7, 0.1, 123);
  CHECK(splits.train.size() == 1045);
  CHECK(splits.validation.size() == 149);
  CHECK(splits.test.size() == 300);
}

TEST_CASE("the lesson's 1045 / 149 / 300 examples make its 130 / 19 / 38 batches of 8") {
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  const auto tokenizer = llm::BpeTokenizer::gpt2();
  const auto examples = [](int64_t n) {
    std::vector<llm::Example> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back({i % 2, "text " + std::to_string(i)});
    return rows;
  };
  const llm::ExampleSplits splits{examples(1045), examples(149), examples(300)};
  const auto loader = [&](const std::vector<llm::Example>& rows, bool train) {
    return llm::DataLoader(std::make_shared<llm::ClassificationDataset>(rows, tokenizer, std::nullopt, "t"),
                           llm::DataLoaderOptions(8).shuffle(train).drop_last(train));
  };
  CHECK(loader(splits.train, true).size() == 130);
  CHECK(loader(splits.validation, false).size() == 19);
  CHECK(loader(splits.test, false).size() == 38);
}

TEST_CASE("the lesson's tables are refused, naming the input, when a class is missing") {
  CHECK_THROWS_WITH(llm::create_balanced_dataset({{"ham", "a"}, {"ham", "b"}}, 123, "'x.zip'"),
                    "'x.zip': no spam rows; expected both classes, ham and spam");
  CHECK_THROWS_WITH(llm::create_balanced_dataset({{"spam", "a"}, {"spam", "b"}, {"ham", "c"}}, 123, "'x.zip'"),
                    Catch::StartsWith("'x.zip': 1 ham rows, fewer than the 2 spam"));
  CHECK_THROWS_WITH(llm::read_labelled_tsv("ham\tok\nspam\t\n", "'x'"),
                    "'x', line 2: the text is empty; expected a message");
  CHECK_THROWS_WITH(llm::read_labelled_tsv("\n\n", "'x'"), Catch::StartsWith("'x': no rows"));
  // labelled_tsv writes what read_labelled_tsv (and pandas) read back.
  const std::vector<llm::LabelledText> rows = {
      {"ham", "\"starts quoted"}, {"spam", "tab\tand\nnewline"}, {"ham", "plain"}};
  const auto back = llm::read_labelled_tsv(llm::labelled_tsv(rows), "'x'");
  REQUIRE(back.size() == 3);
  for (size_t i = 0; i < rows.size(); ++i) CHECK((back[i].label == rows[i].label && back[i].text == rows[i].text));
}

TEST_CASE("read_examples_csv reads to_csv's files and names what is wrong in others") {
  const auto dir = llm::test::temp_dir("examples-csv");
  const auto write = [&](const std::string& name, const std::string& text) {
    llm::write_file_atomic(dir / name, text);
    return dir / name;
  };
  const auto rows = llm::read_examples_csv(write("ok.csv", llm::examples_csv({{1, "a, \"b\""}, {0, "two\nlines"}})));
  REQUIRE(rows.size() == 2);
  CHECK((rows[0].label == 1 && rows[0].text == "a, \"b\""));
  CHECK((rows[1].label == 0 && rows[1].text == "two\nlines"));
  CHECK(llm::read_examples_csv(write("swapped.csv", "Text,Id,Label\nhi,7,1\n")).front().label == 1);
  CHECK_THROWS_WITH(llm::read_examples_csv(write("a.csv", "Text\nhi\n")), Catch::Contains("no Label column"));
  CHECK_THROWS_WITH(llm::read_examples_csv(write("b.csv", "Label,Text\n-1,hi\n")),
                    Catch::Contains("line 2: label '-1'; expected a class number"));
  CHECK_THROWS_WITH(llm::read_examples_csv(write("c.csv", "Label,Text\n1,hi,extra\n")),
                    Catch::Contains("line 2: 3 fields; expected 2"));
  CHECK_THROWS_WITH(llm::read_examples_csv(write("d.csv", "Label,Text\n")), Catch::Contains("a header and no rows"));
}

TEST_CASE("ClassificationDataset pads with 50256 to the longest text, or cuts and pads to max_length") {
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  const auto tokenizer = llm::BpeTokenizer::gpt2();
  const std::vector<llm::Example> rows = {{0, "Do you have time"}, {1, "Hi"}};
  const llm::ClassificationDataset longest(rows, tokenizer, std::nullopt, "t");
  CHECK(longest.max_length() == 4);
  CHECK(torch::equal(longest.inputs(), torch::tensor({{5211, 345, 423, 640}, {17250, 50256, 50256, 50256}})));
  CHECK(torch::equal(longest.labels(), torch::tensor({0, 1})));
  const llm::ClassificationDataset cut(rows, tokenizer, 2, "t");
  CHECK(torch::equal(cut.inputs(), torch::tensor({{5211, 345}, {17250, 50256}})));
  const auto [inputs, labels] = cut.get_batch(torch::tensor({1, 0}));
  CHECK(torch::equal(labels, torch::tensor({1, 0})));
  CHECK(inputs.sizes() == torch::IntArrayRef({2, 2}));
  CHECK_THROWS_WITH(llm::ClassificationDataset({}, tokenizer, std::nullopt, "'e.csv'"),
                    Catch::StartsWith("'e.csv': no examples"));
  CHECK_THROWS_WITH(llm::ClassificationDataset(rows, tokenizer, 0, "'e.csv'"),
                    "'e.csv': max_length must be positive, got 0");
}

// The offline stand-in for the SMS data: what a reader sees of an e-mail.
TEST_CASE("spam_assassin_text reads the subject and the text of an e-mail's body") {
  const std::string plain =
      "From someone@example.com  Tue Aug  6 11:51:02 2002\n"
      "Subject: =?iso-8859-1?Q?Caf=E9_deals?=\n"
      "Content-Type: text/plain; charset=\"iso-8859-1\"\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "Cr=E8me br=FBl=E9e for=\n"
      " everyone.\n\n\n  See you.\n";
  CHECK(llm::spam_assassin_text(plain) == "Café deals Crème brûlée for everyone. See you.");
  const std::string multipart =
      "Subject: Win\n"
      "\tbig today\n"
      "Content-Type: multipart/alternative; boundary=\"XYZ\"\n"
      "\n"
      "preamble\n"
      "--XYZ\n"
      "Content-Type: text/html\n"
      "\n"
      "<html><style>p{}</style><p>Click&nbsp;<b>here</b> &amp; win &#233;</p></html>\n"
      "--XYZ--\n";
  CHECK(llm::spam_assassin_text(multipart) == "Win big today Click here & win é");
  const std::string base64 =
      "Subject: hello\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQ=\n";
  CHECK(llm::spam_assassin_text(base64) == "hello hello world");
  const std::string latin1 = "Subject: x\n\nna\xEFve \x80\n";  // no charset: bytes that are not UTF-8 read as Latin-1
  CHECK(llm::spam_assassin_text(latin1) == "x na\xC3\xAFve \xC2\x80");
  const std::string long_text = "Subject: s\n\n" + std::string(200, 'a') + " " + std::string(200, 'b');
  CHECK(llm::spam_assassin_text(long_text) == "s " + std::string(200, 'a'));  // cut at the space before 300 bytes
  std::string nested = "Subject: deep\nContent-Type: multipart/mixed; boundary=b\n\n";
  for (int i = 0; i < 50; ++i) nested += "--b\nContent-Type: multipart/mixed; boundary=b\n\n";
  CHECK(llm::spam_assassin_text(nested) == "deep");  // nesting beyond a few levels is not followed
}

TEST_CASE("custom_collate: the lesson's toy batch, its cut and exercise 7.2's mask") {
  const std::vector<std::vector<int64_t>> batch = {{0, 1, 2, 3, 4}, {5, 6}, {7, 8, 9}};
  const auto [inputs, targets] = llm::custom_collate(batch);
  CHECK(torch::equal(inputs, torch::tensor({0L, 1L, 2L, 3L, 4L, 5L, 6L, 50256L, 50256L, 50256L, 7L, 8L, 9L, 50256L,
                                            50256L})
                                 .view({3, 5})));
  CHECK(torch::equal(targets, torch::tensor({1L, 2L, 3L, 4L, 50256L, 6L, 50256L, -100L, -100L, -100L, 8L, 9L, 50256L,
                                             -100L, -100L})
                                  .view({3, 5})));
  llm::InstructionDataset::Options cut;
  cut.allowed_max_length = 3;
  const auto [short_inputs, short_targets] = llm::custom_collate(batch, cut);
  CHECK(torch::equal(short_inputs, inputs.slice(1, 0, 3)));
  CHECK(torch::equal(short_targets, targets.slice(1, 0, 3)));
  // The prompt's first length - 1 targets are ignored: here prompts of 3, 1 and 2 tokens.
  const auto [masked_inputs, masked_targets] = llm::custom_collate(batch, {}, {3, 1, 2});
  CHECK(torch::equal(masked_inputs, inputs));
  CHECK(torch::equal(masked_targets[0].slice(0, 0, 3), torch::tensor({-100L, -100L, 3L})));
  CHECK(masked_targets[1][0].item<int64_t>() == 6);
  CHECK(torch::equal(masked_targets[2].slice(0, 0, 2), torch::tensor({-100L, 9L})));
  // A text holding the padding id itself: every 50256 target after the first is ignored.
  const auto [_, with_pad] = llm::custom_collate({{1, 50256, 2}});
  CHECK(torch::equal(with_pad[0], torch::tensor({50256L, 2L, -100L})));
}

TEST_CASE("format_input, the response marker and the split are the lesson's") {
  const llm::InstructionEntry with_input{"Identify the correct spelling of the following word.", "Ocassion",
                                         "The correct spelling is 'Occasion.'", ""};
  CHECK(llm::format_input(with_input) + llm::format_response(with_input) ==
        "Below is an instruction that describes a task. Write a response that appropriately completes the request."
        "\n\n### Instruction:\nIdentify the correct spelling of the following word.\n\n### Input:\nOcassion"
        "\n\n### Response:\nThe correct spelling is 'Occasion.'");
  const llm::InstructionEntry no_input{"What is an antonym of 'complicated'?", "", "An antonym is 'simple'.", ""};
  CHECK(llm::format_input(no_input).find("### Input") == std::string::npos);
  CHECK(llm::format_input(with_input, llm::PromptStyle::kPhi3) ==
        "<|user|>\nIdentify the correct spelling of the following word.\nOcassion");
  CHECK(llm::format_response(with_input, llm::PromptStyle::kPhi3) == "\n<|assistant|>:\nThe correct spelling is 'Occasion.'");
  CHECK_THROWS_WITH(llm::parse_prompt_style("chatml"), Catch::Contains("\"alpaca\" or \"phi3\""));

  const std::vector<llm::InstructionEntry> entries(1100, no_input);
  const auto split = llm::split_instruction_data(entries);
  CHECK(split.train.size() == 935);
  CHECK(split.test.size() == 110);
  CHECK(split.validation.size() == 55);

  const auto prompt = llm::format_input(no_input);
  CHECK(llm::extract_response(prompt + "\n\n### Response:\n  It is 'simple'.\u3000\n", prompt) == "It is 'simple'.");
  CHECK(llm::extract_response(prompt + "\n<|assistant|>:\nYes", prompt, llm::PromptStyle::kPhi3) == "Yes");
  CHECK(llm::extract_response(prompt, prompt).empty());
  CHECK(llm::extract_response("caf\u00e9 ### Response: ok", "caf\u00e9") == "ok");  // Python's len() counts code points
}

TEST_CASE("instruction data: the lesson's JSON in, Python's json.dump(indent=4) out, bad entries named") {
  const auto entries = llm::parse_instruction_data(
      R"([{"instruction": "Say \"hi\"", "input": "", "output": "caf\u00e9\n\ud83d\ude00", "extra": 1},
          {"instruction": "Add", "output": "2", "model_response": "two"}])",
      "x.json");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].output == "caf\u00e9\n\U0001F600");
  CHECK(entries[1].input.empty());
  CHECK(entries[1].model_response == "two");
  CHECK_FALSE(entries[0].model_response.has_value());  // not yet answered
  const auto answered = llm::parse_instruction_data(R"([{"instruction": "x", "output": "y", "model_response": ""}])", "r.json");
  CHECK(answered[0].model_response == "");  // answered with nothing: a response all the same
  CHECK(llm::instruction_data_json(entries) ==
        "[\n    {\n        \"instruction\": \"Say \\\"hi\\\"\",\n        \"input\": \"\",\n"
        "        \"output\": \"caf\\u00e9\\n\\ud83d\\ude00\",\n        \"model_response\": \"\"\n    },\n"
        "    {\n        \"instruction\": \"Add\",\n        \"input\": \"\",\n        \"output\": \"2\",\n"
        "        \"model_response\": \"two\"\n    }\n]");
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"({"instruction": "x"})", "d.json"),
                    Catch::Contains("'d.json': expected a JSON list of entries, got object"));
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"([{"instruction": "x"}])", "d.json"),
                    Catch::Contains("entry 0: no \"output\""));
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"([{"output": "x"}])", "d.json"),
                    Catch::Contains("entry 0: no \"instruction\""));
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"([{"instruction": 3, "output": "x"}])", "d.json"),
                    Catch::Contains("\"instruction\" must be a string, got number"));
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"([1])", "d.json"), Catch::Contains("entry 0: expected an object"));
  CHECK_THROWS_WITH(llm::parse_instruction_data("[]", "d.json"), Catch::Contains("no entries"));
  CHECK_THROWS_WITH(llm::parse_instruction_data(R"([{"instruction": "x", "output": "a<|endoftext|>b"}])", "d.json"),
                    Catch::Contains("entry 0: \"output\" holds <|endoftext|>"));
  CHECK_THROWS_WITH(llm::parse_instruction_data("[{", "d.json"), Catch::Contains("not valid JSON"));
}

TEST_CASE("InstructionDataset batches through custom_collate, with its prompt lengths when masking") {
  llm::test::data_or_skip("gpt2/encoder.json");
  llm::test::data_or_skip("gpt2/vocab.bpe");
  const auto tokenizer = llm::BpeTokenizer::gpt2();
  const std::vector<llm::InstructionEntry> entries = {{"Add 2 and 2.", "", "4", ""}, {"Name a color.", "", "Blue.", ""}};
  llm::InstructionDataset::Options options;
  options.mask_instructions = true;
  const llm::InstructionDataset dataset(entries, tokenizer, options);
  REQUIRE(dataset.size() == 2);
  const std::vector<std::vector<int64_t>> texts = {
      tokenizer.encode(llm::format_input(entries[0]) + llm::format_response(entries[0])),
      tokenizer.encode(llm::format_input(entries[1]) + llm::format_response(entries[1]))};
  const auto [inputs, targets] = dataset.get_batch(torch::tensor({1L, 0L}));
  const auto [expected_inputs, expected_targets] = llm::custom_collate(
      {texts[1], texts[0]}, options,
      {static_cast<int64_t>(tokenizer.encode(llm::format_input(entries[1])).size()),
       static_cast<int64_t>(tokenizer.encode(llm::format_input(entries[0])).size())});
  CHECK(torch::equal(inputs, expected_inputs));
  CHECK(torch::equal(targets, expected_targets));
  CHECK((targets[0] == -100).sum().item<int64_t>() > 20);  // the prompt's tokens
}
