#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/token_file.h"

namespace llm {

/// The documents of `inputs`: each file, and each folder's files (recursively, by
/// path; names that start with "." are left out). A missing input, an unreadable
/// folder, or inputs that hold no file are llm::Errors naming them.
std::vector<std::filesystem::path> list_documents(const std::vector<std::filesystem::path>& inputs);

/// What tools/prepare does: the documents of `inputs`, joined by <|endoftext|>,
/// tokenized into the token file `out`; and, when asked, a validation token file.
struct PrepareOptions {
  std::vector<std::filesystem::path> inputs;
  std::filesystem::path out;
  /// The validation file, `val_out`: the documents of `val_inputs`, or, with
  /// val_fraction, the inputs' last val_fraction of bytes, from the first safe cut
  /// or document boundary at or after that point.
  std::vector<std::filesystem::path> val_inputs;
  double val_fraction = 0.0;
  std::filesystem::path val_out;
  int threads = 1;
  /// Text read per round, for all threads together (0: 1 MB per thread, the
  /// fastest measured); memory stays a few times this whatever the corpus's size.
  size_t block_bytes = 0;
  /// Bytes done and in all, after each round.
  std::function<void(int64_t done, int64_t total)> on_progress;
  /// Checked after each round: true stops, and nothing is written.
  std::function<bool()> should_stop;
};

struct PreparedFiles {
  TokenFileHeader train, val;  // val: only when one was asked for
  int64_t empty_files = 0;     // left out: they hold no text
  int removed_partials = 0;    // files a killed run left half-written beside the outputs, removed
  bool stopped = false;        // should_stop said so; no file was written
};

/// Writes the files atomically (a stopped or failed run leaves no file behind, and
/// what a killed one left half-written beside them is removed first). The
/// ids equal a one-thread tokenizer.encode of the same joined text. The text of each
/// document is checked as it is read: invalid UTF-8 is an llm::Error naming the file
/// and the byte; so is a stretch of more than 64 MB with no safe cut.
PreparedFiles prepare_token_files(const BpeTokenizer& tokenizer, const PrepareOptions& options);

}  // namespace llm
