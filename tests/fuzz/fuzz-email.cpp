// A raw e-mail, byte for byte (io/mail.h's mail_text through spam_assassin_text, the
// offline stand-in for lesson 6.2's SMS). Any bytes are some e-mail: it must return,
// never throw, and give one line of well-formed UTF-8 of at most
// kSpamAssassinTextBytes bytes, with no control characters, no space at either end and
// no two spaces in a row.
#include <string>

#include "fuzz.h"
#include "llm/text/spam_corpora.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = llm::spam_assassin_text(llm::fuzz::bytes(data, size));
  llm::fuzz::require(text.size() <= llm::kSpamAssassinTextBytes, "longer than the cut");
  llm::fuzz::require(llm::fuzz::valid_utf8(text), "not UTF-8");
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    llm::fuzz::require(u >= 0x20 && u != 0x7F, "a control character");
  }
  llm::fuzz::require(text.empty() || (text.front() != ' ' && text.back() != ' '), "a space at an end");
  llm::fuzz::require(text.find("  ") == std::string::npos, "two spaces in a row");
  return 0;
}
