#include "llm/text/token_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"

namespace llm {
namespace {

constexpr std::string_view kMagic = "libtorch-llm tokens\n";

std::string header_text(const TokenFileHeader& header) {
  const nlohmann::json json = {
      {"version", header.version},       {"token_bytes", header.token_bytes},
      {"tokens", header.tokens},         {"documents", header.documents},
      {"vocab_size", header.vocab_size}, {"vocab_hash", header.vocab_hash},
      {"source", header.source},         {"source_bytes", header.source_bytes},
      {"source_hash", header.source_hash}};
  // Names that are not UTF-8 are shown with U+FFFD, as the header must be JSON.
  std::string text = std::string(kMagic) + json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() + 1 > TokenFileHeader::kBytes) {
    // Only a very long list of inputs gets here: keep the start of the names.
    const size_t excess = text.size() + 1 - TokenFileHeader::kBytes + 8;
    auto shorter = header;
    shorter.source = header.source.size() > excess ? header.source.substr(0, header.source.size() - excess) + " ..."
                                                   : std::string("...");
    return header_text(shorter);
  }
  text.resize(TokenFileHeader::kBytes - 1, ' ');
  return text + "\n";
}

TokenFileHeader parse_header(std::string_view bytes, const std::filesystem::path& path) {
  const auto bad = [&](const std::string& what) {
    return Error(fmt::format("token file '{}': {}; expected a file written by prepare", path.string(), what));
  };
  if (bytes.size() < TokenFileHeader::kBytes || bytes.substr(0, kMagic.size()) != kMagic) {
    throw bad("it does not start with a token file's header");
  }
  const auto json_text = bytes.substr(kMagic.size(), TokenFileHeader::kBytes - kMagic.size());
  const auto json = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) throw bad("its header is not a JSON object");
  TokenFileHeader header;
  const auto integer = [&](const char* key, int64_t& out) {
    if (!json.contains(key) || !json[key].is_number_integer() || json[key].get<int64_t>() < 0) {
      throw bad(fmt::format("its header has no count '{}'", key));
    }
    out = json[key].get<int64_t>();
  };
  const auto text = [&](const char* key, std::string& out) {
    if (!json.contains(key) || !json[key].is_string()) throw bad(fmt::format("its header has no text '{}'", key));
    out = json[key].get<std::string>();
  };
  integer("version", header.version);
  if (header.version != TokenFileHeader::kVersion) {
    throw bad(fmt::format("it is version {}, this program reads version {}", header.version, TokenFileHeader::kVersion));
  }
  integer("token_bytes", header.token_bytes);
  integer("tokens", header.tokens);
  integer("documents", header.documents);
  integer("vocab_size", header.vocab_size);
  text("vocab_hash", header.vocab_hash);
  text("source", header.source);
  integer("source_bytes", header.source_bytes);
  text("source_hash", header.source_hash);
  if (header.token_bytes != 2 && header.token_bytes != 4) {
    throw bad(fmt::format("its ids are {} bytes each, not 2 or 4", header.token_bytes));
  }
  if (header.vocab_size > (int64_t{1} << (8 * header.token_bytes))) {
    throw bad(fmt::format("its vocabulary of {} tokens does not fit in {} bytes", header.vocab_size,
                          header.token_bytes));
  }
  const auto expected = TokenFileHeader::kBytes + static_cast<uint64_t>(header.tokens) * header.token_bytes;
  if (header.tokens > (int64_t{1} << 50) || bytes.size() != expected) {
    throw bad(fmt::format("it has {} bytes, but a header and {} ids of {} bytes make {}", bytes.size(), header.tokens,
                          header.token_bytes, expected));
  }
  return header;
}

}  // namespace

uint64_t fnv1a64(std::string_view bytes, uint64_t hash) {
  for (const unsigned char b : bytes) {
    hash ^= b;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string hash_name(uint64_t hash) { return fmt::format("fnv1a64:{:016x}", hash); }

std::string vocabulary_hash(const BpeVocabulary& vocabulary) {
  uint64_t hash = kFnv1a64Start;
  for (const auto& token : vocabulary.tokens) {
    hash = fnv1a64(fmt::format("{}:", token.size()), hash);
    hash = fnv1a64(token, hash);
  }
  for (const auto& [left, right] : vocabulary.merges) hash = fnv1a64(fmt::format("{} {}\n", left, right), hash);
  return hash_name(hash);
}

bool is_token_file(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  return read_file_start(path, kMagic.size()) == kMagic;
}

TokenFile::TokenFile(const std::filesystem::path& path)
    : path_(path), file_(path), header_(parse_header(file_.bytes(), path)) {
  ids_ = reinterpret_cast<const unsigned char*>(file_.bytes().data()) + TokenFileHeader::kBytes;
}

void TokenFile::read(int64_t begin, int64_t count, int64_t* out) const {
  if (begin < 0 || count < 0 || begin + count > size()) {
    throw Error(fmt::format("token file '{}': ids [{}, {}) are outside its {} tokens", path_.string(), begin,
                            begin + count, size()));
  }
  // Little-endian on disk, as on every machine LibTorch runs on here.
  if (header_.token_bytes == 2) {
    const unsigned char* p = ids_ + 2 * begin;
    for (int64_t i = 0; i < count; ++i, p += 2) out[i] = p[0] | (p[1] << 8);
  } else {
    const unsigned char* p = ids_ + 4 * begin;
    for (int64_t i = 0; i < count; ++i, p += 4) {
      out[i] = static_cast<int64_t>(p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24));
    }
  }
  // A damaged or forged file: an id the vocabulary does not have, named where it is.
  const int64_t vocab_size = header_.vocab_size;
  if (const auto bad = std::find_if(out, out + count, [&](int64_t id) { return id >= vocab_size; }); bad != out + count) {
    throw Error(fmt::format("token file '{}': id {} at position {} is not in its vocabulary of {} tokens",
                            path_.string(), *bad, begin + (bad - out), vocab_size));
  }
}

std::vector<int64_t> TokenFile::ids() const {
  std::vector<int64_t> all(static_cast<size_t>(size()));
  read(0, size(), all.data());
  return all;
}

void TokenFile::check_vocabulary(const BpeTokenizer& tokenizer) const {
  const auto hash = vocabulary_hash(tokenizer.vocabulary());
  if (header_.vocab_hash != hash || header_.vocab_size != tokenizer.vocab_size()) {
    throw Error(fmt::format("token file '{}': made with another vocabulary ({} tokens, {}), not this tokenizer's ({} "
                            "tokens, {}); prepare it again",
                            path_.string(), header_.vocab_size, header_.vocab_hash, tokenizer.vocab_size(), hash));
  }
}

TokenFileWriter::TokenFileWriter(const std::filesystem::path& path, int64_t vocab_size, std::string vocab_hash)
    : file_(path) {
  header_.vocab_size = vocab_size;
  header_.vocab_hash = std::move(vocab_hash);
  header_.token_bytes = vocab_size <= 65536 ? 2 : 4;
  file_.write(std::string(TokenFileHeader::kBytes, ' '));  // the header's place
}

void TokenFileWriter::append(const std::vector<int64_t>& ids) {
  const auto width = static_cast<size_t>(header_.token_bytes);
  buffer_.resize(ids.size() * width);
  unsigned char* p = buffer_.data();
  for (const int64_t id : ids) {
    if (id < 0 || id >= header_.vocab_size) {
      throw Error(fmt::format("token file '{}': id {} is outside the vocabulary of {} tokens", path().string(), id,
                              header_.vocab_size));
    }
    for (size_t k = 0; k < width; ++k) *p++ = static_cast<unsigned char>(id >> (8 * k));
  }
  file_.write({reinterpret_cast<const char*>(buffer_.data()), buffer_.size()});
  header_.tokens += static_cast<int64_t>(ids.size());
}

void TokenFileWriter::add_source_text(std::string_view text) {
  source_hash_ = fnv1a64(text, source_hash_);
  header_.source_bytes += static_cast<int64_t>(text.size());
}

const TokenFileHeader& TokenFileWriter::commit(const std::string& source) {
  header_.source = source;
  header_.source_hash = hash_name(source_hash_);
  file_.write_at(0, header_text(header_));
  file_.commit();
  return header_;
}

}  // namespace llm
