#include "llm/text/labelled_examples.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "llm/io/csv.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/numpy_random.h"

namespace llm {
namespace {

std::vector<size_t> rows_labelled(const std::vector<LabelledText>& rows, std::string_view label) {
  std::vector<size_t> found;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label == label) found.push_back(i);
  }
  return found;
}

}  // namespace

std::vector<LabelledText> read_labelled_tsv(std::string_view tsv, std::string_view source) {
  std::vector<LabelledText> rows;
  for (auto& record : read_delimited(tsv, '\t', source)) {
    const auto where = fmt::format("{}, line {}", source, record.line);
    if (record.fields.size() != 2) {
      throw Error(fmt::format("{}: {} fields; expected 2, a label and a text, separated by a tab", where,
                              record.fields.size()));
    }
    if (record.fields[0] != "ham" && record.fields[0] != "spam") {
      throw Error(fmt::format("{}: label '{}'; expected ham or spam", where, record.fields[0]));
    }
    if (record.fields[1].empty()) throw Error(fmt::format("{}: the text is empty; expected a message", where));
    rows.push_back({std::move(record.fields[0]), std::move(record.fields[1])});
  }
  if (rows.empty()) throw Error(fmt::format("{}: no rows; expected lines of a label, a tab and a text", source));
  return rows;
}

std::string labelled_tsv(const std::vector<LabelledText>& rows) {
  std::string out;
  for (const auto& row : rows) {
    // A text that pandas would split or unquote is quoted, as the C parser reads it.
    const bool quote = row.text.find_first_of("\"\t\n\r") != std::string::npos;
    out += row.label;
    out += '\t';
    out += quote ? quoted_field(row.text) : row.text;
    out += '\n';
  }
  return out;
}

std::vector<std::pair<std::string, int64_t>> value_counts(const std::vector<LabelledText>& rows) {
  std::vector<std::pair<std::string, int64_t>> counts;
  for (const auto& row : rows) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == row.label; });
    if (it == counts.end()) {
      counts.emplace_back(row.label, 1);
    } else {
      ++it->second;
    }
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts;
}

std::vector<Example> create_balanced_dataset(const std::vector<LabelledText>& rows, uint32_t seed,
                                             std::string_view source) {
  const auto ham = rows_labelled(rows, "ham"), spam = rows_labelled(rows, "spam");
  if (ham.empty() || spam.empty()) {
    throw Error(fmt::format("{}: no {} rows; expected both classes, ham and spam", source,
                            ham.empty() ? "ham" : "spam"));
  }
  if (ham.size() < spam.size()) {
    throw Error(fmt::format("{}: {} ham rows, fewer than the {} spam; the lesson samples ham down to the spam count",
                            source, ham.size(), spam.size()));
  }
  std::vector<Example> balanced;
  NumpyRandomState random(seed);
  const auto n_spam = static_cast<int64_t>(spam.size());
  for (const int64_t i : random.choice_without_replacement(static_cast<int64_t>(ham.size()), n_spam)) {
    balanced.push_back({0, rows[ham[i]].text});
  }
  for (const size_t i : spam) balanced.push_back({1, rows[i].text});
  return balanced;
}

ExampleSplits random_split(const std::vector<Example>& rows, double train_frac, double validation_frac,
                           uint32_t seed) {
  const auto n = static_cast<int64_t>(rows.size());
  // Python's int(len(df) * frac): the product in double, truncated.
  const auto train_end = static_cast<int64_t>(static_cast<double>(n) * train_frac);
  const auto validation_end = train_end + static_cast<int64_t>(static_cast<double>(n) * validation_frac);
  ExampleSplits splits;
  NumpyRandomState random(seed);
  const auto order = random.choice_without_replacement(n, n);  // sample(frac=1)
  for (int64_t i = 0; i < n; ++i) {
    auto& split = i < train_end ? splits.train : i < validation_end ? splits.validation : splits.test;
    split.push_back(rows[order[i]]);
  }
  return splits;
}

std::string examples_csv(const std::vector<Example>& rows) {
  std::string out = "Label,Text\n";
  for (const auto& row : rows) out += fmt::format("{},{}\n", row.label, csv_field(row.text));
  return out;
}

std::vector<Example> read_examples_csv(const std::filesystem::path& path) {
  const auto source = fmt::format("'{}'", path.string());
  const auto text = read_text_file(path);
  auto records = read_delimited(text, ',', source);
  if (records.empty()) throw Error(fmt::format("{}: no header; expected a CSV with Label and Text columns", source));
  const auto& header = records.front().fields;
  const auto column = [&](std::string_view name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw Error(fmt::format("{}: no {} column in the header ({}); expected the columns Label and Text", source, name,
                              fmt::join(header, ",")));
    }
    return static_cast<size_t>(it - header.begin());
  };
  const size_t label_column = column("Label"), text_column = column("Text");
  std::vector<Example> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    auto& fields = records[r].fields;
    const auto where = fmt::format("{}, line {}", source, records[r].line);
    if (fields.size() != header.size()) {
      throw Error(fmt::format("{}: {} fields; expected {}, as in the header", where, fields.size(), header.size()));
    }
    const auto& label = fields[label_column];
    Example row;
    const auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), row.label);
    if (label.empty() || error != std::errc() || end != label.data() + label.size() || row.label < 0) {
      throw Error(fmt::format("{}: label '{}'; expected a class number (0, 1, ...)", where, label));
    }
    if (fields[text_column].empty()) throw Error(fmt::format("{}: the text is empty; expected a message", where));
    row.text = std::move(fields[text_column]);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw Error(fmt::format("{}: a header and no rows; expected at least one example", source));
  return rows;
}

}  // namespace llm
