#include "llm/util/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

struct Regex::Code {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Code() { pcre2_code_free(code); }
};

Regex::Regex(std::string_view pattern) : code_(std::make_unique<Code>()), pattern_(pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw Error(fmt::format("regex '{}': {} at offset {}", pattern, reinterpret_cast<const char*>(message), offset));
  }
  code_->jit = pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

Regex::Matcher::Matcher(const Regex& regex, std::string_view text)
    : regex_(regex), text_(text), match_data_(pcre2_match_data_create_from_pattern(regex.code_->code, nullptr)) {
  if (match_data_ == nullptr) throw std::bad_alloc();
}

Regex::Matcher::~Matcher() { pcre2_match_data_free(static_cast<pcre2_match_data*>(match_data_)); }

bool Regex::Matcher::next(size_t& begin, size_t& end) {
  if (offset_ >= text_.size()) return false;
  auto* data = static_cast<pcre2_match_data*>(match_data_);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text_.data());
  const int rc = regex_.code_->jit
                     ? pcre2_jit_match(regex_.code_->code, subject, text_.size(), offset_, 0, data, nullptr)
                     : pcre2_match(regex_.code_->code, subject, text_.size(), offset_, PCRE2_NO_UTF_CHECK, data, nullptr);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(rc, message, sizeof message);
    throw Error(fmt::format("regex '{}': matching failed at byte {}: {}", regex_.pattern_, offset_,
                            reinterpret_cast<const char*>(message)));
  }
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
  begin = ovector[0];
  end = ovector[1];
  // None of the project's patterns match the empty string; step over one anyway
  // rather than loop forever if a caller's pattern does.
  offset_ = end > begin ? end : end + 1;
  while (offset_ < text_.size() && (static_cast<unsigned char>(text_[offset_]) & 0xC0) == 0x80) ++offset_;
  return true;
}

}  // namespace llm
