// Lesson 2.2-2.4: split a text into words and punctuation, build a vocabulary, and
// encode and decode with SimpleTokenizerV1 and V2.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llm/io/tensor_archive.h"
#include "llm/text/simple_tokenizer.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-01-simple-tokenizer",
                                   "Word-level tokenizers V1 and V2 built from a text's vocabulary");
  options.add_options()("input", "Text to build the vocabulary from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "text", "Text to encode with V1 (its words must be in the vocabulary)",
      cxxopts::value<std::string>()->default_value(
          R"("It's the last he painted, you know," Mrs. Gisburn said with pardonable pride.)"))(
      "text-v2", "Text to encode with V2 (unknown words become <|unk|>)",
      cxxopts::value<std::string>()->default_value(
          "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace."));

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const std::string raw_text = llm::read_text_file(args["input"].as<std::string>());
    fmt::print("Total number of characters: {}\n", raw_text.size());

    const auto tokens = llm::split_simple(raw_text);
    fmt::print("Tokens: {}\nFirst 30: {}\n\n", tokens.size(),
               std::vector<std::string>(tokens.begin(), tokens.begin() + std::min<size_t>(30, tokens.size())));

    const auto v1 = llm::SimpleTokenizer::from_text(raw_text, llm::SimpleTokenizer::Version::V1);
    const auto v2 = llm::SimpleTokenizer::from_text(raw_text, llm::SimpleTokenizer::Version::V2);
    fmt::print("Vocabulary size: V1 {}, V2 {} (with <|endoftext|> and <|unk|>)\n", v1.vocab_size(), v2.vocab_size());
    fmt::print("Last 5 entries of V2: {}\n\n",
               std::vector<std::string>(v2.vocab().end() - std::min<size_t>(5, v2.vocab_size()), v2.vocab().end()));

    const auto text = args["text"].as<std::string>();
    const auto ids = v1.encode(text);
    fmt::print("V1 encode: {}\nV1 decode: {}\n\n", ids, v1.decode(ids));

    const auto text_v2 = args["text-v2"].as<std::string>();
    const auto ids_v2 = v2.encode(text_v2);
    fmt::print("V2 encode: {}\nV2 decode: {}\n", ids_v2, v2.decode(ids_v2));

    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"num_tokens", torch::tensor(static_cast<int64_t>(tokens.size()))},
                         {"vocab_size_v1", torch::tensor(static_cast<int64_t>(v1.vocab_size()))},
                         {"vocab_size_v2", torch::tensor(static_cast<int64_t>(v2.vocab_size()))},
                         {"ids_v1", torch::tensor(ids)},
                         {"ids_v2", torch::tensor(ids_v2)}});
    }
  });
}
