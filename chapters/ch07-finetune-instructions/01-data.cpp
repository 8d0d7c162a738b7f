// Lesson 7.2: the instruction data. The 1,100 entries of instruction-data.json
// (scripts/fetch-data.sh fetches it from the lesson's URL, checked by SHA-256), two
// of them as Python prints them, format_input's Alpaca prompt with the desired
// response, and the 85% / 10% / 5% split in file order.
#include <fmt/format.h>

#include "llm/cli/cli.h"
#include "llm/cli/train_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/instruction_data.h"
#include "llm/util/files.h"
#include "llm/util/show.h"

namespace {

// print(entry) in Python: the dict's repr.
std::string entry_repr(const llm::InstructionEntry& e) {
  return fmt::format("{{'instruction': {}, 'input': {}, 'output': {}}}", llm::python_repr(e.instruction),
                     llm::python_repr(e.input), llm::python_repr(e.output));
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-01-data", "Lesson 7.2: the instruction data, its prompts and its split",
                                   llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Instruction entries (a JSON list of instruction, input, output)",
                        cxxopts::value<std::string>()->default_value(llm::data_file("instruction-data.json")), "FILE")(
      "prompt-style", "The prompt template: alpaca (the lesson) or phi3 (exercise 7.1)",
      cxxopts::value<std::string>()->default_value("alpaca"), "NAME")(
      "entries", "The entries to show (the lesson's 50 and 999)",
      cxxopts::value<std::vector<int64_t>>()->default_value("50,999"), "I,J");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto style = llm::prompt_style_flag(args);
    const auto shown = args["entries"].as<std::vector<int64_t>>();
    const auto data = llm::read_instruction_data(args["data"].as<std::string>());
    fmt::print("Number of entries: {}\n", data.size());
    for (const auto index : shown) {
      if (index < 0 || index >= static_cast<int64_t>(data.size())) {
        throw llm::cli::BadFlagValue(
            fmt::format("--entries: {} is not an entry; expected 0..{}", index, data.size() - 1));
      }
    }
    std::vector<std::string> prompts;
    for (size_t k = 0; k < shown.size(); ++k) {
      const auto& entry = data[static_cast<size_t>(shown[k])];
      fmt::print("{}:\n {}\n", k == 0 ? "Example entry" : "Another example entry", entry_repr(entry));
    }
    for (const auto index : shown) {
      const auto& entry = data[static_cast<size_t>(index)];
      prompts.push_back(llm::format_input(entry, style) + llm::format_response(entry, style));
      fmt::print("{}\n\n", prompts.back());
    }
    const auto split = llm::split_instruction_data(data);
    fmt::print("Training set length: {}\nValidation set length: {}\nTest set length: {}\n", split.train.size(),
               split.validation.size(), split.test.size());
    if (args.count("save-outputs") != 0) {
      llm::NamedTensors archive = {
          {"data", llm::string_to_tensor(args["data"].as<std::string>())},
          {"prompt_style", llm::string_to_tensor(std::string(llm::prompt_style_name(style)))},
          {"entries", torch::tensor(shown, torch::kLong)},
          {"split_sizes", torch::tensor({static_cast<int64_t>(split.train.size()),
                                         static_cast<int64_t>(split.validation.size()),
                                         static_cast<int64_t>(split.test.size())})}};
      for (size_t k = 0; k < prompts.size(); ++k) {
        archive.emplace_back(fmt::format("prompt_{}", k), llm::string_to_tensor(prompts[k]));
      }
      llm::save_tensors(args["save-outputs"].as<std::string>(), archive);
    }
  });
}
