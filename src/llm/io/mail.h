#pragma once

#include <string>
#include <string_view>

namespace llm {

/// What a reader sees of a raw e-mail (RFC 5322, with MIME), as one line of UTF-8: its
/// Subject (RFC 2047's encoded words decoded), then its body: the first text/plain part
/// of a multipart message (else the first text/html part, its tags removed), decoded
/// from quoted-printable or base64 and from its charset (through iconv; bytes that stay
/// invalid are read as Latin-1), control characters and runs of white space made one
/// space. Multipart parts are looked into at most 8 levels deep; any bytes give a
/// string.
std::string mail_text(std::string_view raw_email);

}  // namespace llm
