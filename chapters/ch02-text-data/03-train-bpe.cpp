// Beyond the lesson: learn a byte-level BPE vocabulary from a text, save it in
// GPT-2's encoder.json / vocab.bpe format, load it back and check the round trip.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/bpe_trainer.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-03-train-bpe", "Train a byte-level BPE vocabulary from a text",
                                   llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Text to learn the merges from",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "vocab-size", "Vocabulary size to reach: 256 bytes + merges + <|endoftext|>",
      cxxopts::value<int64_t>()->default_value("1000"), "N")(
      "out-dir", "Write encoder.json and vocab.bpe here (made if need be)", cxxopts::value<std::string>(),
      "DIR");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto path = args["data"].as<std::string>();
    const std::string text = llm::cli::read_input_text(path, 30);
    const auto out_dir = args.count("out-dir") != 0 ? std::optional(llm::cli::out_dir(args)) : std::nullopt;
    llm::BpeTrainerOptions trainer;
    trainer.vocab_size = args["vocab-size"].as<int64_t>();
    auto vocabulary = llm::train_bpe(text, trainer);
    fmt::print("Learned {} merges: vocabulary of {} tokens (asked for {})\n", vocabulary.merges.size(),
               vocabulary.tokens.size(), trainer.vocab_size);
    fmt::print("First merges:");
    for (size_t i = 0; i < std::min<size_t>(10, vocabulary.merges.size()); ++i) {
      const auto [left, right] = vocabulary.merges[i];
      fmt::print(" [{}]+[{}]", vocabulary.tokens[left], vocabulary.tokens[right]);
    }
    fmt::print("\n");

    if (out_dir) {
      const std::filesystem::path& dir = *out_dir;
      llm::save_bpe_vocabulary(vocabulary, dir / "encoder.json", dir / "vocab.bpe");
      vocabulary = llm::load_bpe_vocabulary(dir / "encoder.json", dir / "vocab.bpe");
      fmt::print("Saved and reloaded {} and {}\n", (dir / "encoder.json").string(), (dir / "vocab.bpe").string());
    }
    const llm::BpeTokenizer tokenizer(std::move(vocabulary));
    const auto ids = tokenizer.encode(text);
    fmt::print("{}: {} bytes -> {} tokens ({:.2f} bytes per token)\n", path, text.size(), ids.size(),
               static_cast<double>(text.size()) / static_cast<double>(ids.size()));
    if (tokenizer.decode(ids) != text) throw llm::Error("train-bpe: decode(encode(text)) differs from the text");
    fmt::print("decode(encode(text)) == text: yes\n");

    if (args.count("save-outputs") != 0) {
      std::vector<int64_t> merges;
      for (const auto& [left, right] : tokenizer.vocabulary().merges) merges.insert(merges.end(), {left, right});
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"input", llm::string_to_tensor(path)},
                         {"vocab_size", torch::tensor(trainer.vocab_size)},
                         {"ids", torch::tensor(ids)},
                         {"merges", torch::tensor(merges).view({-1, 2})}});
    }
  });
}
