#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "llm/io/csv.h"
#include "llm/io/http.h"
#include "llm/io/mail.h"
#include "llm/io/ollama.h"
#include "llm/io/safetensors.h"
#include "llm/io/tensor_archive.h"
#include "llm/io/zip.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/interrupt.h"
#include "llm/util/json.h"
#include "llm/util/show.h"
#include "llm/util/utf8.h"
#include "llm/util/process.h"

namespace fs = std::filesystem;

namespace {
void write(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
}  // namespace

TEST_CASE("save_tensors and load_tensors round-trip names, order and values") {
  const auto dir = llm::test::temp_dir("io-roundtrip");
  const llm::NamedTensors tensors = {{"b", torch::arange(6).view({2, 3})},
                                     {"a", torch::randn({4})},
                                     {"scalar", torch::tensor(3.5)},
                                     {"empty", torch::empty({0}, torch::kLong)}};
  llm::save_tensors(dir / "x.pt", tensors);
  const auto loaded = llm::load_tensors(dir / "x.pt");
  REQUIRE(loaded.size() == tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    CHECK(loaded[i].first == tensors[i].first);
    CHECK(torch::equal(loaded[i].second, tensors[i].second));
  }
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // no temp file left
  CHECK_THROWS_WITH(llm::find_tensor(loaded, "c", "x.pt"), "x.pt: no tensor named 'c'");
  CHECK_THROWS_AS(llm::save_tensors(dir / "y.pt", {{"a", torch::ones(1)}, {"a", torch::ones(1)}}), llm::Error);
}

TEST_CASE("load_tensors names the file that is not a tensor archive") {
  const auto dir = llm::test::temp_dir("io-bad");
  write(dir / "garbage.pt", "this is not a zip archive");
  CHECK_THROWS_WITH(llm::load_tensors(dir / "garbage.pt"), Catch::Contains("garbage.pt': not a torch.save archive"));
  CHECK_THROWS_WITH(llm::load_tensors(dir / "missing.pt"), Catch::Contains("missing.pt': not found"));
  const std::vector<char> list = torch::pickle_save(c10::List<int64_t>({1, 2}));
  write(dir / "list.pt", std::string(list.begin(), list.end()));
  CHECK_THROWS_WITH(llm::load_tensors(dir / "list.pt"), Catch::Contains("list.pt': "));
}

TEST_CASE("read_text_file rejects missing, empty, non-regular and non-UTF-8 files") {
  const auto dir = llm::test::temp_dir("io-text");
  write(dir / "ok.txt", "caf\xC3\xA9\n");
  CHECK(llm::read_text_file(dir / "ok.txt") == "caf\xC3\xA9\n");
  write(dir / "empty.txt", "");
  CHECK_THROWS_WITH(llm::read_text_file(dir / "empty.txt"), Catch::Contains("empty.txt': is empty"));
  CHECK_THROWS_WITH(llm::read_text_file(dir / "nope.txt"), Catch::Contains("nope.txt': not found"));
  CHECK_THROWS_WITH(llm::read_text_file(dir), Catch::Contains("not a regular file"));
  write(dir / "bad.txt", "ok\nab\xC3(x");
  CHECK_THROWS_WITH(llm::read_text_file(dir / "bad.txt"),
                    Catch::Contains("bad.txt': invalid UTF-8 at byte 5 (line 2, column 3)"));
  // Overlong forms, surrogates and code points above U+10FFFF are not UTF-8.
  for (const std::string bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\xFF"}) {
    CHECK_THROWS_AS(llm::check_utf8(bad, "s"), llm::Error);
  }
  CHECK_NOTHROW(llm::check_utf8("\xF0\x9F\x91\x8B \xE4\xBD\xA0 \xC3\xA9", "s"));
}

TEST_CASE("write_file_atomic replaces the file whole and fails cleanly") {
  const auto dir = llm::test::temp_dir("io-atomic");
  llm::write_file_atomic(dir / "f", "first");
  llm::write_file_atomic(dir / "f", "second");
  CHECK(llm::read_file(dir / "f") == "second");
  CHECK_THROWS_WITH(llm::write_file_atomic(dir / "no-such-dir" / "f", "x"), Catch::Contains("does not exist"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("load_tensors reads what torch.save writes: OrderedDict state dicts, views, dtypes") {
  // torch.save(nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3)).state_dict()) after torch.manual_seed(123)
  const auto state = llm::load_tensors(llm::test::golden("io-state-dict.pt"));
  REQUIRE(state.size() == 4);
  CHECK(state[0].first == "0.weight");
  CHECK(state[3].first == "1.bias");
  torch::manual_seed(123);
  torch::nn::Linear linear(4, 3);
  CHECK(torch::equal(state[0].second, linear->weight));
  CHECK(torch::equal(state[1].second, linear->bias));
  CHECK(torch::equal(state[2].second, torch::ones(3)));

  const auto views = llm::load_tensors(llm::test::golden("io-views.pt"));
  const auto w = torch::arange(12, torch::kFloat).view({3, 4});
  CHECK(torch::equal(llm::find_tensor(views, "transposed", "views"), w.t()));
  CHECK(torch::equal(llm::find_tensor(views, "row", "views"), w[1]));
  // Two views of one storage share it, as in PyTorch: the storage is read once.
  const auto storage_of = [&](const char* name) { return llm::find_tensor(views, name, "views").storage().data(); };
  CHECK(storage_of("transposed") == storage_of("row"));
  CHECK(storage_of("transposed") != storage_of("ints"));
  CHECK(torch::equal(llm::find_tensor(views, "ints", "views"), torch::arange(5, torch::kLong)));
  CHECK(llm::find_tensor(views, "half", "views").scalar_type() == torch::kHalf);
  CHECK(torch::equal(llm::find_tensor(views, "flags", "views"), torch::tensor({true, false})));
  CHECK(llm::find_tensor(views, "scalar", "views").item<double>() == 2.5);
}

TEST_CASE("damaged archives give an llm::Error, never a crash") {
  const auto dir = llm::test::temp_dir("io-damaged");
  llm::save_tensors(dir / "x.pt", {{"a", torch::arange(10, torch::kFloat)}, {"b", torch::ones({2, 2})}});
  const std::string bytes = llm::read_file(dir / "x.pt");
  for (const size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    write(dir / "cut.pt", bytes.substr(0, cut));
    INFO("cut at " << cut);
    CHECK_THROWS_AS(llm::load_tensors(dir / "cut.pt"), llm::Error);
  }
  // One byte damaged at a time, across the file: it loads, or fails with an llm::Error.
  size_t rejected = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    auto damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
    write(dir / "damaged.pt", damaged);
    INFO("byte " << i);
    try {
      llm::load_tensors(dir / "damaged.pt");
    } catch (const llm::Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 0);
}

TEST_CASE("show prints a tensor exactly as PyTorch's print() does") {
  // tests/golden/show-pytorch.pt: each tensor with PyTorch's repr of it
  // (scripts/reference/show.py): fixed and scientific notation, integers, inf and nan,
  // wrapped rows, summarised tensors, dtypes and empty tensors.
  const auto golden = llm::load_tensors(llm::test::golden("show-pytorch.pt"));
  int cases = 0;
  for (int i = 0;; ++i) {
    const auto key = std::to_string(i);
    const auto has = [&](const std::string& name) {
      return std::any_of(golden.begin(), golden.end(), [&](const auto& entry) { return entry.first == name; });
    };
    if (!has(key + "/tensor")) break;
    const auto text = [&](const std::string& name) { return llm::tensor_to_string(llm::find_tensor(golden, name, "golden")); };
    INFO(text(key + "/name"));
    CHECK(llm::show(llm::find_tensor(golden, key + "/tensor", "golden")) == text(key + "/repr"));
    ++cases;
  }
  CHECK(cases == 19);
  // Autograd's suffix, and set_printoptions(sci_mode=False), which keeps the width of
  // the scientific notation it turns off (PyTorch 1.13).
  const auto x = torch::tensor({-1.0F, 0.5F, 2.0F}, torch::requires_grad());
  CHECK(llm::show(x) == "tensor([-1.0000,  0.5000,  2.0000], requires_grad=True)");
  CHECK(llm::show(torch::relu(x)) == "tensor([0.0000, 0.5000, 2.0000], grad_fn=<ReluBackward0>)");
  llm::PrintOptions fixed;
  fixed.sci_mode = false;
  CHECK(llm::show(torch::tensor({-5.9605e-08F, 1.9868e-08F}), fixed) == "tensor([    -0.0000,      0.0000])");
}

TEST_CASE("utf8_replace_invalid replaces what Python's decode(errors=\"replace\") replaces") {
  // Expected: bytes.decode("utf-8", "replace").encode("utf-8") in Python 3.11.
  const std::string r = "\xEF\xBF\xBD";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\xE2\x82" "b", "a" + r + "b"},
      {"\xFF\xFE", r + r},
      {"\xF0\x9F\x98\x80!", "\xF0\x9F\x98\x80!"},
      {"\xED\xA0\x80x", r + r + r + "x"},
      {"\xE0\x80\xAF", r + r + r},
      {"\xF4\x90\x80\x80", r + r + r + r},
      {"\xC3", r},
      {"ok \xC3\xA9 \xE2\x82\xAC", "ok \xC3\xA9 \xE2\x82\xAC"}};
  for (const auto& [bytes, expected] : cases) CHECK(llm::utf8_replace_invalid(bytes) == expected);
  CHECK(llm::utf8_length("h\xC3\xA9llo \xE2\x82\xAC") == 7);
  CHECK(llm::utf8_offset("h\xC3\xA9llo", 2) == 3);
}

TEST_CASE("write_file_atomic refuses to replace what is not a regular file") {
  const auto dir = llm::test::temp_dir("not-regular");
  llm::write_file_atomic(dir / "target.txt", "kept");
  std::filesystem::create_symlink(dir / "target.txt", dir / "link.txt");
  std::filesystem::create_directory(dir / "folder");
  CHECK_THROWS_WITH(llm::write_file_atomic(dir / "link.txt", "new"), Catch::Contains("a symbolic link"));
  CHECK(std::filesystem::is_symlink(dir / "link.txt"));
  CHECK(llm::read_file(dir / "target.txt") == "kept");
  CHECK_THROWS_WITH(llm::write_file_atomic(dir / "folder", "new"), Catch::Contains("a folder"));
  CHECK_THROWS_WITH(llm::write_file_atomic("/dev/null", "new"), Catch::Contains("a device"));
  CHECK(std::filesystem::is_character_file("/dev/null"));
}

TEST_CASE("check_output_file refuses, before any work, what write_file_atomic could not write or an input") {
  const auto dir = llm::test::temp_dir("check-output");
  llm::write_file_atomic(dir / "input.pt", "weights");
  std::filesystem::create_hard_link(dir / "input.pt", dir / "hard-link.pt");
  std::filesystem::create_symlink(dir / "input.pt", dir / "link.pt");
  CHECK_NOTHROW(llm::check_output_file(dir / "new.pt", {dir / "input.pt"}));
  CHECK_NOTHROW(llm::check_output_file(dir / "input.pt"));  // replacing a file is fine when it is no input
  CHECK_THROWS_WITH(llm::check_output_file(dir / "input.pt", {dir / "input.pt"}),
                    Catch::Contains("is also an input") && Catch::Contains("refusing to write over it"));
  CHECK_THROWS_WITH(llm::check_output_file(dir / "hard-link.pt", {dir / "input.pt"}),
                    Catch::Contains("is also an input"));
  CHECK_THROWS_WITH(llm::check_output_file(dir / "link.pt"), Catch::Contains("a symbolic link"));
  CHECK_THROWS_WITH(llm::check_output_file(dir / "missing" / "x.pt"), Catch::Contains("does not exist"));
  CHECK(llm::read_file(dir / "input.pt") == "weights");
}

TEST_CASE("run_script_into writes the script's file whole, never through a symbolic link") {
  const auto dir = llm::test::temp_dir("run-script-into");
  llm::write_file_atomic(dir / "kept.txt", "a user's file");
  std::filesystem::create_symlink(dir / "kept.txt", dir / "plot.png");
  // plot_attention.py with too few arguments says its usage on stderr: its last line
  // is the reason given.
  CHECK_THAT(llm::run_script_into("plot_attention.py", {}, dir / "out.png"), Catch::Contains("usage:"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.png"));
  const auto maps = R"({"model": "$x$ and $$", "n_layers": 1, "n_heads": 1, "tokens": ["$", "$$"],
                        "layers": [[{"weights": [[1.0], [0.5, 0.5]]}]]})";
  llm::write_file_atomic(dir / "maps.json", maps);
  const auto said = llm::run_script_into("plot_attention.py", {(dir / "maps.json").string(), "0"}, dir / "plot.png");
  CHECK_THAT(said, Catch::Contains("a symbolic link"));
  CHECK(llm::read_file(dir / "kept.txt") == "a user's file");
  if (said.find("matplotlib is missing") == std::string::npos) {
    CHECK(llm::run_script_into("plot_attention.py", {(dir / "maps.json").string(), "0"}, dir / "new.png").empty());
    CHECK(llm::read_file(dir / "new.png").substr(1, 3) == "PNG");
  }
}

TEST_CASE("parse_json refuses JSON nested deeper than kMaxJsonDepth before any recursion") {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(llm::parse_json(nested(llm::kMaxJsonDepth), "test", "x").is_array());
  CHECK_THROWS_WITH(llm::parse_json(nested(llm::kMaxJsonDepth + 1), "test", "x"),
                    "test 'x': nested more than 64 levels deep at offset 64; expected at most 64");
  CHECK_THROWS_WITH(llm::parse_json("{\"a\": " + nested(1000000) + "}", "config", "c.json"),
                    Catch::Contains("nested more than 64 levels deep at offset 69"));
  // Brackets inside strings (escaped quotes too) are not nesting.
  CHECK(llm::parse_json("[\"" + std::string(1000, '[') + "\\\"[[\"]", "test", "x").size() == 1);
  CHECK_THROWS_WITH(llm::parse_json("[1, 2", "test", "x"), Catch::StartsWith("test 'x': not valid JSON ("));
}

TEST_CASE("json_excerpt keeps what an error message echoes short") {
  CHECK(llm::json_excerpt(nlohmann::json(12)) == "12");
  CHECK(llm::json_excerpt(nlohmann::json::parse("[1, [2, 3]]")) == "[1,[2,3]]");
  CHECK(llm::json_excerpt(nlohmann::json(std::vector<int>(4096, 7))) == "an array of 4096 items");
  CHECK(llm::json_excerpt(nlohmann::json(std::string(10000000, 'x'))) ==
        "\"" + std::string(59, 'x') + "...(+9999942 bytes)");
  // nlohmann's reason quotes what it last read, a tab as "<U+0009>": cut, not 80 KB.
  try {
    llm::parse_json(std::string(10000, '\t') + "x", "request", "body");
    FAIL("a stray x parsed");
  } catch (const llm::Error& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("request 'body': not valid JSON ([json.exception.parse_error.101]"));
    CHECK(std::string(e.what()).size() < 400);
  }
}

TEST_CASE("printable escapes the terminal's control characters, and keeps the rest") {
  CHECK(llm::printable("Hello, wörld\tand\nmore") == "Hello, wörld\tand\nmore");
  CHECK(llm::printable("\x1b]0;pwned\x07\x1b[2J") == "\\x1b]0;pwned\\x07\\x1b[2J");
  CHECK(llm::printable("a\rb\x7f") == "a\\x0db\\x7f");
  CHECK(llm::printable("\xc2\x9b" "31m") == "\\u009b31m");  // the C1 CSI
  CHECK(llm::printable("\xc2\xa0") == "\xc2\xa0");           // a no-break space is text
}

TEST_CASE("mail_text reads HTML with unfinished character references in linear time") {
  // Each "&#" without a ';' used to be a scan to the end: quadratic. A hang guard, not
  // a speed target: 4 MB takes milliseconds when linear, minutes when not.
  std::string html = "Content-Type: text/html\r\n\r\n<p>5 &#8364; &amp; more</p>";
  for (int i = 0; i < 2000000; ++i) html += "&#";
  const auto start = std::chrono::steady_clock::now();
  const auto text = llm::mail_text(html);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  CHECK(text.rfind("5 \u20ac & more &#&#", 0) == 0);
}

TEST_CASE("a second Ctrl-C during a write ends the program only once the write is done") {
  // In a child process: StopOnSignal, then two SIGINTs while DeferSignals is alive. The
  // first must only ask to stop, the second must end the child after the guard, with
  // SIGINT, and the file written inside the guard must be whole.
  const auto dir = llm::test::temp_dir("defer-signals");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const llm::StopOnSignal stop;
    {
      const llm::DeferSignals finish_first;
      std::raise(SIGINT);
      std::raise(SIGINT);
      std::ofstream(dir / "written") << (llm::StopOnSignal::requested() ? "stop requested" : "no stop");
    }
    std::_Exit(0);  // not reached: the second SIGINT ends the child here
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(llm::read_file(dir / "written") == "stop requested");
}

namespace {

// A safetensors file: the length, the header as given, then the data.
std::string safetensors_file(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

}  // namespace

TEST_CASE("safetensors round-trip names, order, dtypes and values, from bytes and memory-mapped") {
  const auto dir = llm::test::temp_dir("io-safetensors");
  const llm::NamedTensors tensors = {{"w", torch::randn({3, 5})},
                                     {"half", torch::randn({4}).to(torch::kHalf)},
                                     {"bf16", torch::randn({2, 2}).to(torch::kBFloat16)},
                                     {"ids", torch::arange(7)},
                                     {"flags", torch::tensor({true, false, true})},
                                     {"scalar", torch::tensor(2.5)},
                                     {"empty", torch::empty({0, 3})}};
  llm::save_safetensors(dir / "x.safetensors", tensors, {{"format", "pt"}});
  const auto bytes = llm::read_file(dir / "x.safetensors");
  CHECK(llm::looks_like_safetensors(bytes));
  CHECK(static_cast<unsigned char>(bytes[0]) % 8 == 0);  // the header is padded: the data start 8-byte aligned
  for (const auto& loaded : {llm::read_safetensors(bytes, "x"), llm::load_tensors(dir / "x.safetensors")}) {
    REQUIRE(loaded.size() == tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      CHECK(loaded[i].first == tensors[i].first);
      CHECK(loaded[i].second.scalar_type() == tensors[i].second.scalar_type());
      CHECK(torch::equal(loaded[i].second, tensors[i].second));
    }
  }
  // A mapped tensor can be written to (copy-on-write) without touching the file.
  auto mapped = llm::load_tensors(dir / "x.safetensors");
  mapped[0].second.zero_();
  CHECK(llm::read_file(dir / "x.safetensors") == bytes);
  CHECK_FALSE(llm::looks_like_safetensors(llm::read_file_start(dir / "x.safetensors", 8)));
}

namespace {

// This process's resident pages of mapped files (/proc/self/status RssFile), in bytes.
int64_t resident_file_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssFile:", 0) == 0) return std::stoll(line.substr(8)) * 1024;
  }
  return -1;
}

constexpr int64_t kBigFloats = 16 << 20;  // 64 MiB

// Two small tensors around a big one. Their sizes are no multiple of a page, so the big
// one shares its first and last pages with them.
llm::NamedTensors small_big_small() {
  return {{"a", torch::full({1001}, 1.0)}, {"big", torch::full({kBigFloats}, 2.0)}, {"b", torch::full({1003}, 3.0)}};
}

// `loaded` is small_big_small() read back from a mapped file: the big tensor's pages go
// when it does, and only its own, so the neighbours keep what was written to them.
void check_big_tensor_pages_go(llm::NamedTensors loaded) {
  REQUIRE(loaded.size() == 3);
  auto a = loaded[0].second, big = loaded[1].second, b = loaded[2].second;
  loaded.clear();
  a.add_(10.0);  // written: these pages are the process's own copies now
  b.add_(10.0);
  const auto idle = resident_file_bytes();
  CHECK(big.sum().item<double>() == 2.0 * kBigFloats);  // every page of it read in (some may have been)
  const auto before = resident_file_bytes();
  REQUIRE(before >= idle + 4 * kBigFloats - (4 << 20));
  big = torch::Tensor();
  CHECK(resident_file_bytes() <= before - 4 * kBigFloats + (1 << 20));
  CHECK(torch::equal(a, torch::full({1001}, 11.0)));
  CHECK(torch::equal(b, torch::full({1003}, 13.0)));
}

}  // namespace

TEST_CASE("a memory-mapped safetensors tensor gives its pages back when it goes, and only its own") {
  const auto dir = llm::test::temp_dir("io-safetensors-release");
  llm::save_safetensors(dir / "x.safetensors", small_big_small());
  check_big_tensor_pages_go(llm::load_tensors(dir / "x.safetensors"));
}

TEST_CASE("a torch.save archive is read mapped: never held whole, each storage's pages go with it") {
  const auto dir = llm::test::temp_dir("io-archive-release");
  llm::save_tensors(dir / "x.pt", small_big_small());
  const auto start = resident_file_bytes();  // the program's own code is mapped from files too
  auto loaded = llm::load_tensors(dir / "x.pt");
  // Every byte was read for its CRC-32, and given back: the 64 MiB storage is not resident.
  CHECK(resident_file_bytes() < start + kBigFloats);
  check_big_tensor_pages_go(std::move(loaded));
  CHECK(llm::load_tensors(dir / "x.pt")[0].second.sum().item<double>() == 1001.0);  // the file is as written
}

TEST_CASE("damaged safetensors files give an llm::Error naming the file and the key") {
  const std::string four_floats(16, '\0');
  const auto error_of = [](const std::string& bytes) {
    try {
      llm::read_safetensors(bytes, "f.safetensors");
    } catch (const llm::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto entry = [](const std::string& name, const std::string& dtype, const std::string& shape, int begin, int end) {
    return fmt::format(R"("{}":{{"dtype":"{}","shape":{},"data_offsets":[{},{}]}})", name, dtype, shape, begin, end);
  };
  CHECK(error_of(safetensors_file("{" + entry("a", "F32", "[4]", 0, 16) + "}", four_floats)) == "no error");
  CHECK_THAT(error_of("short"), Catch::Contains("f.safetensors': 5 bytes"));
  CHECK_THAT(error_of(safetensors_file("{}", "").substr(0, 7) + "\x7f"),
             Catch::Contains("does not fit"));
  {  // a header length of 2^64 - 1 is named as such, wherever the file is loaded
    const auto dir = llm::test::temp_dir("io-safetensors-length");
    write(dir / "huge-length.safetensors", std::string(8, '\xff') + R"({"a":{}})");
    CHECK_THROWS_WITH(llm::load_tensors(dir / "huge-length.safetensors"),
                      Catch::Contains("a header of 18446744073709551615 bytes does not fit"));
  }
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[4]", 0, 16), four_floats)),
             Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[5]", 0, 16) + "}", four_floats)),
             Catch::Contains("tensor 'a': shape [5] of F32 takes 20 bytes"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[4]", 0, 16) + "}", four_floats.substr(8))),
             Catch::Contains("tensor 'a': data_offsets [0, 16] lie outside the 8 bytes"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("b", "F32", "[2]", 8, 16) + "}",
                                       four_floats)),
             Catch::Contains("it overlaps another"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[2]", 8, 16) + "}", four_floats)),
             Catch::Contains("tensor 'a' starts at byte 8 of the data, where 0 was expected (a gap)"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[2]", 0, 8) + "}", four_floats)),
             Catch::Contains("the tensors cover 8 of the 16 bytes"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "Q4", "[4]", 0, 16) + "}", four_floats)),
             Catch::Contains("dtype 'Q4' is not one of"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[-4]", 0, 16) + "}", four_floats)),
             Catch::Contains("shape must hold sizes of 0 or more"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[4294967296,4294967296,4294967296]", 0, 16) + "}", four_floats)),
             Catch::Contains("is too large"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "BOOL", "[16]", 0, 16) + "}", std::string(15, '\0') + "\x02")),
             Catch::Contains("a BOOL byte of value 2"));
  CHECK_THAT(error_of(safetensors_file("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("a", "F32", "[0]", 16, 16) + "}",
                                       four_floats)),
             Catch::Contains("the key 'a' appears twice"));
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');  // no recursion may overflow
  CHECK_THAT(error_of(safetensors_file(R"({"a":)" + deep + "}", "")),
             Catch::Contains("nested more than 64 levels deep at offset 68"));
  CHECK_THAT(error_of(safetensors_file(R"({"__metadata__":{"n":1},)" + entry("a", "F32", "[4]", 0, 16) + "}", four_floats)),
             Catch::Contains("__metadata__ must map names to strings"));
}

namespace {

// tests/golden/zip-sample.zip, written by Python's zipfile (scripts/reference/zip_sample.py).
std::string zip_sample() { return llm::read_file(llm::test::golden("zip-sample.zip")); }

std::string repeated(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// Where the central directory's entry for `name` starts: the name's last occurrence,
// 46 bytes into the entry.
size_t directory_entry(const std::string& zip, const std::string& name) { return zip.rfind(name) - 46; }

void put_le(std::string& bytes, size_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

}  // namespace

TEST_CASE("ZipReader reads what Python's zipfile writes: deflated, stored and empty entries") {
  const auto bytes = zip_sample();
  const llm::ZipReader zip(bytes, "zip 'zip-sample.zip'");
  REQUIRE(zip.entries().size() == 4);
  CHECK(zip.find("nope") == nullptr);
  std::string all_bytes;
  for (int i = 0; i < 4 * 256; ++i) all_bytes += static_cast<char>(i % 256);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"hello.txt", repeated("Hello, zip!\n", 200)},
      {"data/bytes.bin", all_bytes},
      {"empty.txt", ""},
      {"zip64.txt", repeated("ham\tGo until jurong point\nspam\tFree entry\n", 50)}};
  for (const auto& [name, contents] : expected) {
    INFO(name);
    const auto* entry = zip.find(name);
    REQUIRE(entry != nullptr);
    CHECK(zip.read(*entry) == contents);
    CHECK_NOTHROW(zip.verify(*entry));
  }
  CHECK(zip.find("hello.txt")->method == 8);
  CHECK(zip.find("data/bytes.bin")->method == 0);
}

TEST_CASE("ZipReader::verify hands a stored entry's bytes over piece by piece, in order, each place once") {
  const auto dir = llm::test::temp_dir("io-zip-pieces");
  llm::save_tensors(dir / "x.pt", {{"big", torch::ones({10 << 20})}});  // one 40 MiB stored entry
  const auto bytes = llm::read_file(dir / "x.pt");
  const llm::ZipReader zip(bytes, "zip 'x.pt'");
  const auto largest = std::max_element(zip.entries().begin(), zip.entries().end(),
                                         [](const auto& a, const auto& b) { return a.size < b.size; });
  REQUIRE(largest->size == uint64_t{40} << 20);
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  zip.verify(*largest, [&](uint64_t offset, uint64_t n) { pieces.emplace_back(offset, n); });
  REQUIRE(pieces.size() == 3);
  uint64_t next = largest->data_offset;
  for (const auto& [offset, n] : pieces) {
    CHECK(offset == next);
    CHECK(n <= llm::ZipReader::kPieceBytes);
    next = offset + n;
  }
  CHECK(next == largest->data_offset + largest->size);
  // A deflated entry is inflated into the reader's own buffer: no piece of the bytes.
  const auto sample = zip_sample();
  const llm::ZipReader deflated(sample, "zip 'zip-sample.zip'");
  size_t handed = 0;
  deflated.verify(*deflated.find("hello.txt"), [&](uint64_t, uint64_t) { ++handed; });
  CHECK(handed == 0);
}

TEST_CASE("ZipReader refuses damaged and hostile archives with an llm::Error naming them") {
  using Catch::Contains;
  const auto bytes = zip_sample();
  const auto hello = [&](const std::string& zip) {
    const llm::ZipReader reader(zip, "zip 'x.zip'");
    return reader.read(*reader.find("hello.txt"));
  };
  // A flipped byte in the deflated data: an invalid stream or a failed CRC-32.
  auto flipped = bytes;
  flipped[bytes.find("hello.txt") + 9 + 10] ^= 0x40;
  CHECK_THROWS_WITH(hello(flipped), Contains("zip 'x.zip': damaged (entry 'hello.txt'"));
  // A directory that states fewer bytes than the entry inflates to: no zip bomb.
  auto bomb = bytes;
  put_le(bomb, directory_entry(bomb, "hello.txt") + 24, 100, 4);
  CHECK_THROWS_WITH(hello(bomb), Contains("entry 'hello.txt' inflates past the 100 bytes its directory states"));
  // A compression method other than stored or deflated.
  auto bzip2 = bytes;
  put_le(bzip2, directory_entry(bzip2, "hello.txt") + 10, 12, 2);
  CHECK_THROWS_WITH(hello(bzip2), Contains("entry 'hello.txt' uses compression method 12"));
  // An entry whose data would lie past the end of the file.
  auto past = bytes;
  put_le(past, directory_entry(past, "hello.txt") + 20, 1u << 30, 4);
  CHECK_THROWS_WITH(llm::ZipReader(past, "zip 'x.zip'"), Contains("a record points past the end of the file"));
  // Cut anywhere: refused at once, or when an entry is read.
  for (const size_t cut : {size_t{0}, size_t{21}, bytes.size() / 2, bytes.size() - 1}) {
    INFO("cut at " << cut);
    const auto cut_bytes = bytes.substr(0, cut);
    CHECK_THROWS_AS(
        [&] {
          const llm::ZipReader zip(cut_bytes, "zip 'x.zip'");
          for (const auto& entry : zip.entries()) zip.verify(entry);
        }(),
        llm::Error);
  }
}

// pandas' C parser and to_csv on tricky text (scripts/reference/csv_golden.py): lesson
// 6.2 reads the SMS file and writes the CSV files with them.
TEST_CASE("read_delimited and csv_field split and quote as pandas does") {
  const auto golden = nlohmann::json::parse(llm::read_file(llm::test::golden("csv-pandas.json")));
  REQUIRE(golden["read"].size() == 13);
  for (const auto& c : golden["read"]) {
    const auto text = c["text"].get<std::string>();
    INFO(text);
    const char sep = c["sep"].get<std::string>().at(0);
    if (c["rows"].is_null()) {
      CHECK_THROWS_WITH(llm::read_delimited(text, sep, "'x.tsv'"),
                        Catch::StartsWith("'x.tsv': the quote that opens a field on line 1 is never closed"));
      continue;
    }
    std::vector<std::vector<std::string>> rows;
    for (auto& record : llm::read_delimited(text, sep, "'x'")) rows.push_back(record.fields);
    CHECK(rows == c["rows"].get<std::vector<std::vector<std::string>>>());
  }
  for (const auto& c : golden["write"]) {
    std::string csv = "Label,Text\n";
    const auto labels = c["labels"].get<std::vector<int64_t>>();
    const auto texts = c["texts"].get<std::vector<std::string>>();
    for (size_t i = 0; i < labels.size(); ++i) csv += std::to_string(labels[i]) + "," + llm::csv_field(texts[i]) + "\n";
    CHECK(csv == c["csv"].get<std::string>());
  }
  // Line numbers count the lines a quoted field spans.
  const auto records = llm::read_delimited("a\t\"x\ny\"\n\nb\tz\n", '\t', "'x'");
  REQUIRE(records.size() == 2);
  CHECK(records[0].line == 1);
  CHECK(records[1].line == 4);
}

TEST_CASE("parse_score: Python's int() of a score, nothing else") {
  CHECK(llm::parse_score("85") == 85);
  CHECK(llm::parse_score(" 85\n") == 85);
  CHECK(llm::parse_score("+7") == 7);
  CHECK(llm::parse_score("-3") == -3);
  CHECK(llm::parse_score("1_00") == 100);
  for (const char* bad : {"", " ", "85.0", "85 out of 100", "Score: 85", "1__0", "_1", "1_", "+", "0x10", "85%",
                          "99999999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(llm::parse_score(bad).has_value());
  }
}

TEST_CASE("the HTTP client says when nothing listens") {
  // A port that was free a moment ago: bind, read it, close.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  const llm::HttpEndpoint endpoint{"127.0.0.1", ntohs(address.sin_port)};
  try {
    llm::query_model("hi", "llama3", endpoint, std::chrono::seconds(2));
    FAIL("no error");
  } catch (const llm::HttpError& e) {
    CHECK(e.kind == llm::HttpError::Kind::kUnreachable);
    CHECK_THAT(e.what(), Catch::Contains("nothing listens on http://127.0.0.1:"));
  }
}
