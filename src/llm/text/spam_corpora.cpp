#include "llm/text/spam_corpora.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/io/mail.h"
#include "llm/io/zip.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

// At most `limit` bytes of UTF-8 `text`, cut at the last space within them, else after
// the last whole character.
std::string shortened_at_space(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  const size_t space = text.rfind(' ', limit);
  if (space != std::string::npos && space > 0) return text.substr(0, space);
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
  return text.substr(0, end);
}

}  // namespace

std::vector<LabelledText> read_sms_spam_zip(const std::filesystem::path& zip_path) {
  const auto bytes = read_file(zip_path);
  const ZipReader zip(bytes, fmt::format("zip '{}'", zip_path.string()));
  const auto* entry = zip.find("SMSSpamCollection");
  if (entry == nullptr) {
    throw Error(fmt::format("zip '{}': no file SMSSpamCollection in it; expected the UCI archive "
                            "sms+spam+collection.zip",
                            zip_path.string()));
  }
  const auto source = fmt::format("'{}' (SMSSpamCollection)", zip_path.string());
  const auto tsv = zip.read(*entry);
  check_utf8(tsv, source);
  return read_labelled_tsv(tsv, source);
}

std::vector<LabelledText> read_spam_assassin(const std::filesystem::path& folder) {
  std::vector<LabelledText> rows;
  for (const auto& group : kSpamAssassinGroups) {
    const auto dir = folder / group.folder;
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) {
      throw Error(fmt::format("SpamAssassin corpus: no folder '{}'; expected the groups {} (scripts/fetch-data.sh)",
                              dir.string(), "easy-ham-1, easy-ham-2, hard-ham-1, spam-1 and spam-2"));
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".txt") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto text = spam_assassin_text(read_file(file));
      if (!text.empty()) rows.push_back({group.label, std::move(text)});
    }
  }
  return rows;
}

std::string spam_assassin_text(std::string_view raw_email) {
  return shortened_at_space(mail_text(raw_email), kSpamAssassinTextBytes);
}

}  // namespace llm
