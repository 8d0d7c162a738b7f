// Lesson 6.2: the spam data. The SMS Spam Collection (from its UCI zip, through the
// project's zip reader), or offline the SpamAssassin mail corpus; balanced by sampling
// ham down to the spam count, split 70/10/20, and written as train.csv,
// validation.csv and test.csv, the same bytes as the lesson's pandas code writes.
#include <fmt/format.h>

#include <filesystem>

#include "llm/cli/cli.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/labelled_examples.h"
#include "llm/text/spam_corpora.h"
#include "llm/util/files.h"

namespace {

// print(df["Label"].value_counts()), as pandas prints it.
void print_value_counts(const std::vector<std::pair<std::string, int64_t>>& counts) {
  size_t label_width = 5, count_width = 0;  // "Label" heads the index
  for (const auto& [label, count] : counts) {
    label_width = std::max(label_width, label.size());
    count_width = std::max(count_width, std::to_string(count).size());
  }
  fmt::print("Label\n");
  for (const auto& [label, count] : counts) {
    fmt::print("{:<{}}    {:>{}}\n", label, label_width - 1, count, count_width);
  }
  fmt::print("Name: count, dtype: int64\n");
}

// --dataset auto: the SMS zip when present, else the SpamAssassin corpus.
std::string chosen_dataset(const cxxopts::ParseResult& args, const std::filesystem::path& zip,
                           const std::filesystem::path& corpus) {
  const auto dataset = args["dataset"].as<std::string>();
  if (dataset != "auto") return dataset;
  std::error_code error;
  if (std::filesystem::exists(zip, error)) return "sms";
  if (std::filesystem::exists(corpus, error)) return "spam-assassin";
  throw llm::Error(fmt::format("no spam data: neither '{}' nor '{}' exists; run scripts/fetch-data.sh", zip.string(),
                               corpus.string()));
}

// The rows of `dataset`, and the file or folder they come from.
std::pair<std::vector<llm::LabelledText>, std::string> read_corpus(const std::string& dataset,
                                                                   const std::filesystem::path& zip,
                                                                   const std::filesystem::path& corpus) {
  if (dataset == "sms") {
    fmt::print("Dataset: the SMS Spam Collection ({})\n", zip.string());
    return {llm::read_sms_spam_zip(zip), zip.string()};
  }
  if (dataset == "spam-assassin") {
    fmt::print("Dataset: the SpamAssassin public mail corpus ({}), subject and body, the first {} bytes of each "
               "e-mail; the offline stand-in for the lesson's SMS Spam Collection\n",
               corpus.string(), llm::kSpamAssassinTextBytes);
    return {llm::read_spam_assassin(corpus), corpus.string()};
  }
  throw llm::cli::BadFlagValue(fmt::format("--dataset '{}': expected sms, spam-assassin or auto", dataset));
}

// train.csv, validation.csv and test.csv (and, from SpamAssassin, its rows as a table
// in the SMS file's format, for the lesson's own code) in `out_dir`.
void write_splits(const std::filesystem::path& out_dir, const llm::ExampleSplits& splits, const std::string& dataset,
                  const std::vector<llm::LabelledText>& rows) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    throw llm::Error(fmt::format("--out-dir '{}': cannot be made a folder ({})", out_dir.string(), error.message()));
  }
  if (dataset == "spam-assassin") llm::write_file_atomic(out_dir / "SpamAssassin.tsv", llm::labelled_tsv(rows));
  const std::pair<const char*, const std::vector<llm::Example>*> files[] = {
      {"train.csv", &splits.train}, {"validation.csv", &splits.validation}, {"test.csv", &splits.test}};
  for (const auto& [name, split] : files) {
    llm::write_file_atomic(out_dir / name, llm::examples_csv(*split));
    fmt::print("{}: {} rows\n", (out_dir / name).string(), split->size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch06-01-data", "Lesson 6.2: balance and split the spam data into CSV files",
                                   llm::cli::kSeedFlag | llm::cli::kSaveOutputsFlag);
  options.add_options()("dataset", "sms (the lesson's SMS Spam Collection), spam-assassin (offline), or auto: the SMS "
                                   "zip when present, else SpamAssassin",
                        cxxopts::value<std::string>()->default_value("auto"), "NAME")(
      "zip", "The SMS Spam Collection's zip (scripts/fetch-data.sh)",
      cxxopts::value<std::string>()->default_value(llm::data_file("sms_spam_collection.zip")), "FILE")(
      "spam-assassin", "The SpamAssassin corpus's folder (scripts/fetch-data.sh)",
      cxxopts::value<std::string>()->default_value(llm::data_file("spam-assassin")), "DIR")(
      "out-dir", "Where train.csv, validation.csv and test.csv go",
      cxxopts::value<std::string>()->default_value(llm::data_file("spam")), "DIR")(
      "train-frac", "Share of the rows for training", cxxopts::value<double>()->default_value("0.7"), "X")(
      "validation-frac", "Share for validation (the rest is the test set)",
      cxxopts::value<double>()->default_value("0.1"), "X");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto seed = llm::cli::seed(args);
    if (seed > 0xFFFFFFFFu) {
      throw llm::cli::BadFlagValue(fmt::format(
          "--seed {} is pandas' random_state here, a NumPy RandomState seed: expected 0..4294967295", seed));
    }
    const double train_frac = args["train-frac"].as<double>(), validation_frac = args["validation-frac"].as<double>();
    if (!(train_frac > 0 && validation_frac >= 0 && train_frac + validation_frac < 1)) {
      throw llm::cli::BadFlagValue(fmt::format(
          "--train-frac {} and --validation-frac {}: expected a positive training share and shares that leave some "
          "rows for the test set",
          train_frac, validation_frac));
    }
    const std::filesystem::path zip = args["zip"].as<std::string>(), corpus = args["spam-assassin"].as<std::string>(),
                                out_dir = args["out-dir"].as<std::string>();
    const auto dataset = chosen_dataset(args, zip, corpus);
    const auto [rows, source] = read_corpus(dataset, zip, corpus);

    print_value_counts(llm::value_counts(rows));
    const auto balanced = llm::create_balanced_dataset(rows, static_cast<uint32_t>(seed), source);
    const auto half = static_cast<int64_t>(balanced.size() / 2);  // as many ham as spam
    print_value_counts({{"ham", half}, {"spam", half}});
    const auto splits = llm::random_split(balanced, train_frac, validation_frac, static_cast<uint32_t>(seed));
    write_splits(out_dir, splits, dataset, rows);
    if (args.count("save-outputs") != 0) {
      const auto csv = [](const std::vector<llm::Example>& split) {
        return llm::string_to_tensor(llm::examples_csv(split));
      };
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"dataset", llm::string_to_tensor(dataset)},
                         {"source", llm::string_to_tensor(source)},
                         {"out_dir", llm::string_to_tensor(out_dir.string())},
                         {"seed", torch::tensor(static_cast<int64_t>(seed))},
                         {"train_frac", torch::tensor(train_frac, torch::kDouble)},
                         {"validation_frac", torch::tensor(validation_frac, torch::kDouble)},
                         {"train_csv", csv(splits.train)},
                         {"validation_csv", csv(splits.validation)},
                         {"test_csv", csv(splits.test)}});
    }
  });
}
