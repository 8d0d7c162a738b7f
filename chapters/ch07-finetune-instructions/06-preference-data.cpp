// The ch07/04 bonus, the data of preference tuning (dpo-from-scratch.ipynb, sections
// 2 and 3): the 1,100 entries of instruction-data-with-preference.json, entries 50 and
// 999 as pprint shows them, the prompt with the chosen and the rejected response, the
// 85% / 10% / 5% split, and the notebook's PreferenceDataset and custom_collate_fn on
// its two example entries: the batch's keys, its prompts, padded texts and masks, the
// texts the masks keep, and after torch.manual_seed(123) the shapes of every training
// batch.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/text/data_loader.h"
#include "llm/text/preference_data.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/pprint.h"
#include "llm/util/show.h"

namespace {

// pprint.pp(data[index]): the entry's keys in the file's order.
std::string pprinted(const nlohmann::ordered_json& entry) {
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [key, value] : entry.items()) items.emplace_back(key, value.get<std::string>());
  return llm::python_pprint(items);
}

// A list of tensors as the notebook's cell shows it: one per line, every line of each
// indented by one space inside the list's bracket.
std::string tensor_list(const std::vector<torch::Tensor>& tensors) {
  std::string out = "[";
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto text = llm::show(tensors[i]);
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2)) text.insert(at + 1, " ");
    out += (i == 0 ? "" : ",\n ") + text;
  }
  return out + "]";
}

std::string decoded(const llm::BpeTokenizer& tokenizer, const torch::Tensor& ids) {
  const auto flat = ids.flatten().contiguous();
  return tokenizer.decode(std::vector<int64_t>(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel()));
}

// Sections 2.3-2.4: the collate on the notebook's two example entries.
llm::PreferenceBatch show_example_batch(const std::vector<llm::PreferenceEntry>& entries,
                                        const nlohmann::ordered_json& json, const llm::BpeTokenizer& tokenizer,
                                        const llm::PreferenceCollate& collate) {
  for (size_t i = 0; i < 2; ++i) fmt::print("\n{}\n", pprinted(json[i]));
  const llm::PreferenceDataset example({entries[0], entries[1]}, tokenizer, collate);
  const auto batch = collate({&example.tokens(0), &example.tokens(1)});
  fmt::print("batch.keys: dict_keys(['prompt', 'chosen', 'rejected', 'rejected_mask', 'chosen_mask'])\n");
  std::vector<torch::Tensor> prompts;
  for (int64_t i = 0; i < 2; ++i) prompts.push_back(torch::tensor(example.tokens(i).prompt, torch::kLong));
  fmt::print("{}\n{}\n", tensor_list(prompts), llm::show(batch.chosen));
  fmt::print("{}\n\n{}\n\n{}\n\n", decoded(tokenizer, prompts[0]), decoded(tokenizer, batch.chosen[0]),
             decoded(tokenizer, batch.rejected[0]));
  fmt::print("chosen inputs: {}\nchosen mask:   {}\n", llm::torch_size(batch.chosen[0]),
             llm::torch_size(batch.chosen_mask[0]));
  fmt::print("{}\n", llm::show(batch.chosen_mask[0]));
  fmt::print("{}\n\n{}\n\n", decoded(tokenizer, batch.chosen[0].masked_select(batch.chosen_mask[0])),
             decoded(tokenizer, batch.rejected[0].masked_select(batch.rejected_mask[0])));
  return batch;
}

// Section 2.5: the training loader, batch 8, shuffled after torch.manual_seed(123)
// (cli::run seeds with --seed); every batch's chosen and rejected shapes.
std::vector<int64_t> show_train_loader(const std::vector<llm::PreferenceEntry>& train,
                                       const llm::BpeTokenizer& tokenizer, const llm::PreferenceCollate& collate,
                                       int64_t batch_size) {
  const auto dataset = std::make_shared<llm::PreferenceDataset>(train, tokenizer, collate);
  const llm::DataLoader loader(dataset, llm::DataLoaderOptions(batch_size).shuffle(true).drop_last(true));
  fmt::print("Train loader:\n");
  std::vector<int64_t> lengths;
  for (const auto& batch : loader) {
    const auto b = llm::preference_batch(batch);
    fmt::print("{} {}\n", llm::torch_size(b.chosen), llm::torch_size(b.rejected));
    lengths.push_back(b.chosen.size(1));
  }
  return lengths;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-06-preference-data",
                                   "The DPO bonus: the preference data, its prompts, its split and its batches",
                                   llm::cli::kSeedFlag | llm::cli::kSaveOutputsFlag);
  options.add_options()(
      "data", "Preference entries (a JSON list of instruction, input, output, chosen, rejected)",
      cxxopts::value<std::string>()->default_value(llm::data_file("instruction-data-with-preference.json")), "FILE")(
      "batch-size", "Entries per batch", cxxopts::value<int64_t>()->default_value("8"), "N")(
      "allowed-max-length", "Cut every batch to this many tokens (the notebook: 1024, GPT-2's context)",
      cxxopts::value<int64_t>()->default_value("1024"), "N")(
      "entries", "The entries to show (the notebook's 50 and 999)",
      cxxopts::value<std::vector<int64_t>>()->default_value("50,999"), "I,J");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto path = args["data"].as<std::string>();
    const auto batch_size = llm::cli::positive_flag(args, "batch-size");
    llm::PreferenceCollate collate;  // the notebook's: mask_prompt_tokens=True
    collate.allowed_max_length = llm::cli::positive_flag(args, "allowed-max-length");
    const auto shown = args["entries"].as<std::vector<int64_t>>();
    const auto text = llm::read_file(path);
    const auto entries = llm::parse_preference_data(text, path);  // checks every entry first
    if (entries.size() < 2) throw llm::Error(fmt::format("'{}': {} entry; expected at least 2", path, entries.size()));
    for (const auto index : shown) {
      if (index < 0 || index >= static_cast<int64_t>(entries.size())) {
        throw llm::cli::BadFlagValue(
            fmt::format("--entries: {} is not an entry; expected 0..{}", index, entries.size() - 1));
      }
    }
    const auto json = nlohmann::ordered_json::parse(text);
    fmt::print("Number of entries: {}\n", entries.size());
    for (const auto index : shown) fmt::print("{}\n", pprinted(json[static_cast<size_t>(index)]));
    const auto& first = entries[static_cast<size_t>(shown.front())];
    fmt::print("{}\n### Response:\n{}\n### Response:\n{}\n", llm::format_input(first.entry), first.chosen,
               first.rejected);
    const auto split = llm::split_preference_data(entries);
    fmt::print("Training set length: {}\nValidation set length: {}\nTest set length: {}\n", split.train.size(),
               split.validation.size(), split.test.size());
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const auto batch = show_example_batch(entries, json, tokenizer, collate);
    const auto lengths = show_train_loader(split.train, tokenizer, collate, batch_size);
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"data", llm::string_to_tensor(path)},
                         {"seed", torch::tensor(static_cast<int64_t>(llm::cli::seed(args)))},
                         {"batch_size", torch::tensor(batch_size)},
                         {"allowed_max_length", torch::tensor(collate.allowed_max_length)},
                         {"split_sizes", torch::tensor({static_cast<int64_t>(split.train.size()),
                                                        static_cast<int64_t>(split.validation.size()),
                                                        static_cast<int64_t>(split.test.size())})},
                         {"example_chosen", batch.chosen},
                         {"example_rejected", batch.rejected},
                         {"example_chosen_mask", batch.chosen_mask},
                         {"example_rejected_mask", batch.rejected_mask},
                         {"train_lengths", torch::tensor(lengths, torch::kLong)}});
    }
  });
}
