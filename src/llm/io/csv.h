#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

/// One record of a delimited text file: its fields and the line it starts on (from 1).
struct CsvRecord {
  int64_t line = 0;
  std::vector<std::string> fields;
};

/// The records of `text` as pandas.read_csv's C parser splits them with its default
/// dialect, which the lessons' files are read with:
///   - fields end at `separator`, records at \n, \r\n or \r;
///   - a field that starts with '"' is quoted: it runs to the next lone '"', holding
///     separators and line ends, and '""' inside it is one '"'; what follows the closing
///     quote up to the separator is kept too ('"a"b' is ab). A '"' elsewhere is text;
///   - lines that are empty or hold only spaces and tabs are skipped;
///   - nothing is trimmed.
/// A quote still open at the end is an llm::Error naming `source` and its line.
std::vector<CsvRecord> read_delimited(std::string_view text, char separator, std::string_view source);

/// `field` between quotes, each '"' in it doubled: how a delimited file holds any text.
std::string quoted_field(std::string_view field);

/// `field` as pandas' DataFrame.to_csv writes it (Python's csv.QUOTE_MINIMAL with "\n"
/// line ends): between quotes, each '"' doubled, when it holds the separator, a '"' or
/// a '\n'; as it is otherwise.
std::string csv_field(std::string_view field, char separator = ',');

}  // namespace llm
