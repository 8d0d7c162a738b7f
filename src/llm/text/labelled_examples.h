#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

/// A row of lesson 6.2's table before the labels become numbers: "ham" or "spam".
struct LabelledText {
  std::string label;
  std::string text;
};

/// A row of train.csv, validation.csv and test.csv: the class (0 ham, 1 spam) and the
/// text.
struct Example {
  int64_t label = 0;
  std::string text;
};

/// The table of a tab-separated "label<TAB>text" file, as the lesson reads the SMS Spam
/// Collection: pd.read_csv(path, sep="\t", header=None, names=["Label", "Text"]) (see
/// read_delimited). Every row must have two fields, the label ham or spam, and a text;
/// otherwise an llm::Error names `source` and the line.
std::vector<LabelledText> read_labelled_tsv(std::string_view tsv, std::string_view source);

/// The inverse, for tables that come from elsewhere (the SpamAssassin corpus): a file
/// that read_labelled_tsv, and pandas, read back as `rows`.
std::string labelled_tsv(const std::vector<LabelledText>& rows);

/// Rows per label, as pandas' value_counts() lists them: most first; ties in the order
/// the labels first appear.
std::vector<std::pair<std::string, int64_t>> value_counts(const std::vector<LabelledText>& rows);

/// Lesson 6.2's create_balanced_dataset, then its map({"ham": 0, "spam": 1}): as many
/// ham rows as there are spam, drawn as pandas' sample(num_spam, random_state=seed)
/// draws them, followed by every spam row. An llm::Error names `source` when either
/// class is empty.
std::vector<Example> create_balanced_dataset(const std::vector<LabelledText>& rows, uint32_t seed,
                                             std::string_view source);

/// Lesson 6.2's random_split: the rows shuffled as sample(frac=1, random_state=seed)
/// shuffles them, then the first int(n * train_frac), the next int(n * validation_frac)
/// and the rest.
struct ExampleSplits {
  std::vector<Example> train, validation, test;
};
ExampleSplits random_split(const std::vector<Example>& rows, double train_frac, double validation_frac,
                           uint32_t seed);

/// The file DataFrame.to_csv(index=None) writes for `rows`: "Label,Text", then a line
/// per row.
std::string examples_csv(const std::vector<Example>& rows);

/// The rows of such a file, as the lesson's SpamDataset reads it (pd.read_csv): the
/// columns are found by the header's names "Label" and "Text" (others are ignored), each
/// label must be a whole number from 0 and each text non-empty. Errors name the file,
/// the line and what was expected.
std::vector<Example> read_examples_csv(const std::filesystem::path& path);

}  // namespace llm
