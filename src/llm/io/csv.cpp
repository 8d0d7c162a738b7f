#include "llm/io/csv.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

// A small state machine after the C parser's (pandas/_libs/src/parser/tokenizer.c),
// restricted to the dialect above; tests/golden/csv-pandas.json holds what pandas
// makes of tricky inputs.
std::vector<CsvRecord> read_delimited(std::string_view text, char separator, std::string_view source) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  bool quoted = false;      // inside a quoted field
  bool in_record = false;   // a field of this line has begun
  int64_t line = 1, quote_line = 0;
  const auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
  };
  const auto end_record = [&] {
    end_field();
    records.push_back(std::move(record));
    record = {};
    in_record = false;
  };
  const auto blank_until_line_end = [&](size_t from) {
    for (size_t j = from; j < text.size() && text[j] != '\n' && text[j] != '\r'; ++j) {
      if ((text[j] != ' ' && text[j] != '\t') || text[j] == separator) return false;
    }
    return true;
  };
  bool field_start = true;  // at the first character of a field
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;  // what follows up to the separator is kept as text
        }
      } else {
        if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) ++line;
        field += c;
      }
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (in_record) end_record();
      ++line;
      field_start = true;
      continue;
    }
    if (!in_record) {
      if (blank_until_line_end(i)) {  // an empty or all-blank line: skipped
        while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r') ++i;
        continue;
      }
      in_record = true;
      record.line = line;
    }
    if (c == separator) {
      end_field();
      field_start = true;
      continue;
    }
    if (c == '"' && field_start) {
      quoted = true;
      quote_line = line;
    } else {
      field += c;
    }
    field_start = false;
  }
  if (quoted) {
    throw Error(fmt::format("{}: the quote that opens a field on line {} is never closed; expected a closing '\"'",
                            source, quote_line));
  }
  if (in_record) end_record();
  return records;
}

std::string csv_field(std::string_view field, char separator) {
  if (field.find_first_of(std::string{separator, '"', '\n'}) == std::string_view::npos) return std::string(field);
  return quoted_field(field);
}

std::string quoted_field(std::string_view field) {
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace llm
