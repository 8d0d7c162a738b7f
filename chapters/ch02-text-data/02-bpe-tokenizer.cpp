// Lesson 2.5: GPT-2's byte-level BPE tokenizer (the ids of tiktoken's "gpt2"), and the
// tokenizers of today's models read from Hugging Face's tokenizer.json.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "llm/io/tensor_archive.h"
#include "llm/text/chat_format.h"
#include "llm/text/tokenizer_json.h"
#include "llm/cli/cli.h"
#include "llm/util/files.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch02-02-bpe-tokenizer", "BPE tokenizers: encode, decode, count tokens",
                                   llm::cli::kSaveOutputsFlag);
  options.add_options()("tokenizer",
                        fmt::format("{} (fetched by scripts/fetch-data.sh), or a tokenizer.json file",
                                    fmt::join(llm::tokenizer_names(), ", ")),
                        cxxopts::value<std::string>()->default_value("gpt2"), "NAME|FILE")("data", "Text file to encode (its ids are saved as \"ids\")",
                        cxxopts::value<std::string>()->default_value(llm::data_file("the-verdict.txt")), "FILE")(
      "text", "A sample to encode token by token",
      cxxopts::value<std::string>()->default_value(
          "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace."), "TEXT")(
      "chat", "Encode --text as a user's message in a model's chat format: qwen3, llama3 or gemma3",
      cxxopts::value<std::string>(), "FORMAT")("thinking", "With --chat qwen3: leave the thinking block open")(
      "encoder", "encoder.json of a GPT-2-style vocabulary (instead of --tokenizer)",
      cxxopts::value<std::string>()->default_value(llm::data_file("gpt2/encoder.json")), "FILE")(
      "merges", "vocab.bpe of a GPT-2-style vocabulary (instead of --tokenizer)",
      cxxopts::value<std::string>()->default_value(llm::data_file("gpt2/vocab.bpe")), "FILE");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const bool gpt2_files = args.count("encoder") != 0 || args.count("merges") != 0;
    if (gpt2_files && args.count("tokenizer") != 0) {
      throw llm::cli::BadFlagValue("give either --tokenizer or --encoder and --merges, not both");
    }
    const auto tokenizer =
        gpt2_files ? llm::BpeTokenizer::from_files(args["encoder"].as<std::string>(), args["merges"].as<std::string>())
                   : llm::tokenizer_named(args["tokenizer"].as<std::string>());
    fmt::print("Vocabulary: {} tokens, {} merges\n\n", tokenizer.vocab_size(), tokenizer.vocabulary().merges.size());

    const auto text = args["text"].as<std::string>();
    std::set<std::string> allowed;
    if (tokenizer.special_token("<|endoftext|>")) allowed.insert("<|endoftext|>");
    llm::ChatOptions chat;
    chat.thinking = args.count("thinking") != 0;
    const auto sample_ids =
        args.count("chat") == 0
            ? tokenizer.encode(text, allowed)
            : llm::encode_chat(tokenizer,
                               llm::chat_format_named(llm::cli::choice_flag(args, "chat", {"qwen3", "llama3", "gemma3"})),
                               {{"user", text}}, chat);
    fmt::print("Text: {}\nIds:  {}\nTokens:", text, sample_ids);
    for (const auto id : sample_ids) fmt::print(" [{}]", tokenizer.token_bytes(id));
    fmt::print("\nDecoded: {}\n\n", tokenizer.decode(sample_ids));

    const auto path = args["data"].as<std::string>();
    const std::string raw_text = llm::cli::read_input_text(path, 12);
    const auto ids = tokenizer.encode(raw_text);
    fmt::print("{}: {} characters -> {} tokens. decode gives the text back: {}\n", path, raw_text.size(), ids.size(),
               tokenizer.decode(ids) == raw_text ? "yes" : "NO");

    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"ids", torch::tensor(ids)}, {"sample_ids", torch::tensor(sample_ids)}});
    }
  });
}
