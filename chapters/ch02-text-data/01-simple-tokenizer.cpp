// Lesson 2.2-2.4: split a text into words and punctuation, build a vocabulary, and
// encode and decode with SimpleTokenizerV1 and V2.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/simple_tokenizer.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "llm/util/utf8.h"

namespace {

// Python's re.split(pattern, text) for a pattern with one capturing group: the pieces
// between the matches, each followed by what the group captured.
std::vector<std::string> re_split(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> pieces;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
    pieces.push_back(text.substr(last, it->position() - last));
    pieces.push_back(it->str(1));
    last = it->position() + it->length();
  }
  pieces.push_back(text.substr(last));
  return pieces;
}

std::vector<std::string> stripped_nonempty(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const auto& piece : pieces) {
    const auto first = piece.find_first_not_of(" \t\n\r\f\v");
    if (first != std::string::npos) out.push_back(piece.substr(first, piece.find_last_not_of(" \t\n\r\f\v") - first + 1));
  }
  return out;
}

// 2.2's regular expressions, refined one at a time on toy sentences.
void toy_splits() {
  const std::string text = "Hello, world. This, is a test.";
  fmt::print("{}\n", llm::python_list(re_split(text, std::regex(R"((\s))"))));
  const auto result = re_split(text, std::regex(R"(([,.]|\s))"));
  fmt::print("{}\n{}\n", llm::python_list(result), llm::python_list(stripped_nonempty(result)));
  fmt::print("{}\n", llm::python_list(llm::split_simple("Hello, world. Is this-- a test?")));
}

// An entry of the vocabulary as Python prints a (token, id) tuple.
void print_entry(const std::string& token, size_t id) {
  fmt::print("({}, {})\n", llm::python_repr(llm::shortened(token)), id);
}

// V1 encodes --text with the vocabulary of --input, whose words alone it knows.
std::vector<int64_t> encode_v1(const llm::SimpleTokenizer& v1, const cxxopts::ParseResult& args) {
  try {
    return v1.encode(args["text"].as<std::string>());
  } catch (const llm::Error& e) {
    throw llm::Error(fmt::format("--text, encoded with the vocabulary of --data '{}': {}",
                                 args["data"].as<std::string>(), e.what()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-01-simple-tokenizer",
                                   "Word-level tokenizers V1 and V2 built from a text's vocabulary",
                                   llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Text to build the vocabulary from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "text", "Text to encode with V1 (its words must be in the vocabulary)",
      cxxopts::value<std::string>()->default_value(
          R"("It's the last he painted, you know," Mrs. Gisburn said with pardonable pride.)"), "TEXT")(
      "text-v2", "Text to encode with V2 (unknown words become <|unk|>)",
      cxxopts::value<std::string>()->default_value(
          "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace."), "TEXT");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const std::string raw_text = llm::cli::read_input_text(args["data"].as<std::string>(), 40);
    fmt::print("Total number of character: {}\n{}\n", llm::utf8_length(raw_text),
               raw_text.substr(0, llm::utf8_offset(raw_text, 99)));
    toy_splits();

    const auto preprocessed = llm::split_simple(raw_text);
    std::vector<std::string> first;  // the lesson's first 30, each bounded in length
    for (size_t i = 0; i < std::min<size_t>(30, preprocessed.size()); ++i) first.push_back(llm::shortened(preprocessed[i]));
    fmt::print("{}\n{}\n", llm::python_list(first), preprocessed.size());

    // 2.3: the vocabulary, its first 51 entries, and V1.
    const auto v1 = llm::SimpleTokenizer::from_text(raw_text, llm::SimpleTokenizer::Version::V1);
    fmt::print("{}\n", v1.vocab_size());
    for (size_t i = 0; i < std::min<size_t>(51, v1.vocab_size()); ++i) print_entry(v1.vocab()[i], i);
    const auto text = args["text"].as<std::string>();
    const auto ids = encode_v1(v1, args);
    fmt::print("[{}]\n{}\n{}\n", fmt::join(ids, ", "), llm::python_repr(v1.decode(ids)),
               llm::python_repr(v1.decode(ids)));

    // 2.4: V2 adds <|endoftext|> and <|unk|>.
    const auto v2 = llm::SimpleTokenizer::from_text(raw_text, llm::SimpleTokenizer::Version::V2);
    fmt::print("{}\n", v2.vocab_size());
    for (size_t i = v2.vocab_size() - std::min<size_t>(5, v2.vocab_size()); i < v2.vocab_size(); ++i) {
      print_entry(v2.vocab()[i], i);
    }
    const auto text_v2 = args["text-v2"].as<std::string>();
    const auto ids_v2 = v2.encode(text_v2);
    fmt::print("{}\n[{}]\n{}\n", text_v2, fmt::join(ids_v2, ", "), llm::python_repr(v2.decode(ids_v2)));

    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"input", llm::string_to_tensor(args["data"].as<std::string>())},
                         {"text", llm::string_to_tensor(text)},
                         {"text_v2", llm::string_to_tensor(text_v2)},
                         {"num_tokens", torch::tensor(static_cast<int64_t>(preprocessed.size()))},
                         {"vocab_size_v1", torch::tensor(static_cast<int64_t>(v1.vocab_size()))},
                         {"vocab_size_v2", torch::tensor(static_cast<int64_t>(v2.vocab_size()))},
                         {"ids_v1", torch::tensor(ids)},
                         {"ids_v2", torch::tensor(ids_v2)}});
    }
  });
}
