#include "llm/io/csv.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

namespace {

// A small state machine after the C parser's (pandas/_libs/src/parser/tokenizer.c),
// restricted to the dialect of csv.h; tests/golden/csv-pandas.json holds what pandas
// makes of tricky inputs. Each step takes the character at i and returns the index of
// the last one it used.
class DelimitedReader {
 public:
  DelimitedReader(std::string_view text, char separator) : text_(text), separator_(separator) {}

  std::vector<CsvRecord> read(std::string_view source) {
    for (size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (quoted_) {
        i = quoted_char(i);
      } else if (c == '\n' || c == '\r') {
        i = line_end(i);
      } else {
        i = plain_char(i);
      }
    }
    if (quoted_) {
      throw Error(fmt::format("{}: the quote that opens a field on line {} is never closed; expected a closing '\"'",
                              source, quote_line_));
    }
    if (in_record_) end_record();
    return std::move(records_);
  }

 private:
  size_t quoted_char(size_t i) {
    const char c = text_[i];
    if (c == '"') {
      if (i + 1 < text_.size() && text_[i + 1] == '"') {
        field_ += '"';
        return i + 1;
      }
      quoted_ = false;  // what follows up to the separator is kept as text
      return i;
    }
    if (c == '\n' || (c == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n'))) ++line_;
    field_ += c;
    return i;
  }

  size_t line_end(size_t i) {
    if (text_[i] == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
    if (in_record_) end_record();
    ++line_;
    field_start_ = true;
    return i;
  }

  size_t plain_char(size_t i) {
    const char c = text_[i];
    if (!in_record_) {
      if (blank_until_line_end(i)) {  // an empty or all-blank line: skipped
        while (i + 1 < text_.size() && text_[i + 1] != '\n' && text_[i + 1] != '\r') ++i;
        return i;
      }
      in_record_ = true;
      record_.line = line_;
    }
    if (c == separator_) {
      end_field();
      field_start_ = true;
      return i;
    }
    if (c == '"' && field_start_) {
      quoted_ = true;
      quote_line_ = line_;
    } else {
      field_ += c;
    }
    field_start_ = false;
    return i;
  }

  bool blank_until_line_end(size_t from) const {
    for (size_t j = from; j < text_.size() && text_[j] != '\n' && text_[j] != '\r'; ++j) {
      if ((text_[j] != ' ' && text_[j] != '\t') || text_[j] == separator_) return false;
    }
    return true;
  }

  void end_field() {
    record_.fields.push_back(std::move(field_));
    field_.clear();
  }

  void end_record() {
    end_field();
    records_.push_back(std::move(record_));
    record_ = {};
    in_record_ = false;
  }

  std::string_view text_;
  char separator_;
  std::vector<CsvRecord> records_;
  CsvRecord record_;
  std::string field_;
  bool quoted_ = false;       // inside a quoted field
  bool in_record_ = false;    // a field of this line has begun
  bool field_start_ = true;   // at the first character of a field
  int64_t line_ = 1, quote_line_ = 0;
};

}  // namespace

std::vector<CsvRecord> read_delimited(std::string_view text, char separator, std::string_view source) {
  return DelimitedReader(text, separator).read(source);
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
