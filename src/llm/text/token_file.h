#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/util/files.h"

namespace llm {

/// A corpus tokenized once (tools/prepare) and memory-mapped by training, as
/// nanoGPT's train.bin is, with a header that says what it holds. Layout:
///
///   bytes 0..1023   the line "libtorch-llm tokens", then one JSON object (the fields
///                   below), padded with spaces to 1023 bytes and ended by "\n", so
///                   that `head -c 1024 FILE` shows it;
///   bytes 1024..    the ids, little-endian, token_bytes each: uint16 when the
///                   vocabulary has at most 65536 tokens (GPT-2's 50257), else uint32.
struct TokenFileHeader {
  static constexpr int64_t kVersion = 1;
  static constexpr size_t kBytes = 1024;

  int64_t version = kVersion;
  int64_t token_bytes = 2;
  int64_t tokens = 0;
  /// The texts tokenized, each a document; <|endoftext|> separates them.
  int64_t documents = 0;
  int64_t vocab_size = 0;
  /// vocabulary_hash() of the tokenizer: a file is only read with the same vocabulary.
  std::string vocab_hash;
  /// The inputs' names, and the size and fnv1a64 hash of the exact text the ids
  /// encode (the documents joined by "<|endoftext|>"): decoding the ids gives it back.
  std::string source;
  int64_t source_bytes = 0;
  std::string source_hash;
};

/// FNV-1a, 64 bits, continued from `hash`: fnv1a64(b, fnv1a64(a)) == fnv1a64(a + b).
constexpr uint64_t kFnv1a64Start = 0xcbf29ce484222325ULL;
uint64_t fnv1a64(std::string_view bytes, uint64_t hash = kFnv1a64Start);
/// "fnv1a64:" and the hash in 16 hex digits.
std::string hash_name(uint64_t hash);
/// The hash of a vocabulary: every token's bytes and every merge, in order.
std::string vocabulary_hash(const BpeVocabulary& vocabulary);

/// Whether `path` is a file that starts like a token file (its header is not checked).
bool is_token_file(const std::filesystem::path& path);

/// A token file, mapped read-only: ids are read where they lie, never copied whole.
class TokenFile {
 public:
  /// Maps `path` and checks its header and size: any mismatch is an llm::Error naming
  /// the file.
  explicit TokenFile(const std::filesystem::path& path);

  const TokenFileHeader& header() const { return header_; }
  int64_t size() const { return header_.tokens; }
  const std::filesystem::path& path() const { return path_; }

  /// Ids [begin, begin + count) as int64, into `out`.
  void read(int64_t begin, int64_t count, int64_t* out) const;
  /// All ids (for tests and small files).
  std::vector<int64_t> ids() const;

  /// An llm::Error unless the file was made with `tokenizer`'s vocabulary.
  void check_vocabulary(const BpeTokenizer& tokenizer) const;

 private:
  std::filesystem::path path_;
  MappedFile file_;
  TokenFileHeader header_;
  const unsigned char* ids_ = nullptr;
};

/// Writes a token file atomically: ids are appended as they come, the header is
/// written at commit(), and the file appears whole then, or not at all.
class TokenFileWriter {
 public:
  TokenFileWriter(const std::filesystem::path& path, int64_t vocab_size, std::string vocab_hash);

  /// Appends ids, each in [0, vocab_size).
  void append(const std::vector<int64_t>& ids);
  /// Counts a document, and the text its ids encode (for the header's source fields).
  void add_source_text(std::string_view text);
  void add_document() { ++header_.documents; }
  /// Writes the header with `source` as the inputs' names and renames the file into place.
  const TokenFileHeader& commit(const std::string& source);

  const TokenFileHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  AtomicFile file_;
  TokenFileHeader header_;
  uint64_t source_hash_ = kFnv1a64Start;
  std::vector<unsigned char> buffer_;
};

}  // namespace llm
