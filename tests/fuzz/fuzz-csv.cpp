// Delimited text as pandas' C parser reads it (read_delimited, which lesson 6.2 reads
// the SMS file and the CSV splits with). The first byte picks the separator (odd: a
// tab, even: a comma), the rest is the text. The reader returns records or throws an
// llm::Error; the records that csv_field can write back (two fields or more, none
// holding a '\r', which to_csv leaves unquoted as pandas does) read back unchanged;
// read_labelled_tsv accepts or throws an llm::Error.
#include <string>
#include <vector>

#include "fuzz.h"
#include "llm/io/csv.h"
#include "llm/text/labelled_examples.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char separator = (data[0] & 1) != 0 ? '\t' : ',';
  const std::string text = llm::fuzz::bytes(data + 1, size - 1);
  try {
    const auto records = llm::read_delimited(text, separator, "fuzz input");
    std::vector<std::vector<std::string>> writable;
    std::string written;
    int64_t last_line = 0;
    for (const auto& record : records) {
      llm::fuzz::require(!record.fields.empty(), "a record without fields");
      llm::fuzz::require(record.line > last_line, "records out of line order");
      last_line = record.line;
      bool ok = record.fields.size() >= 2;
      for (const auto& field : record.fields) ok = ok && field.find('\r') == std::string::npos;
      if (!ok) continue;
      writable.push_back(record.fields);
      for (size_t i = 0; i < record.fields.size(); ++i) {
        written += (i > 0 ? std::string(1, separator) : std::string()) + llm::csv_field(record.fields[i], separator);
      }
      written += '\n';
    }
    std::vector<std::vector<std::string>> reread;
    for (const auto& record : llm::read_delimited(written, separator, "written")) reread.push_back(record.fields);
    llm::fuzz::require(reread == writable, "records written with csv_field read back differently");
  } catch (const llm::Error&) {
  }
  try {
    llm::read_labelled_tsv(text, "fuzz input");
  } catch (const llm::Error&) {
  }
  return 0;
}
