#include "llm/text/prepare.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <string>
#include <thread>

#include "llm/text/token_corpus.h"
#include "llm/util/error.h"
#include "llm/util/utf8.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxUncut = size_t{64} << 20;  // text with no safe cut held at once

}  // namespace

std::vector<fs::path> list_documents(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> documents;
  for (const auto& input : inputs) {
    std::error_code error;
    const auto status = fs::status(input, error);
    if (fs::is_regular_file(status)) {
      documents.push_back(input);
    } else if (fs::is_directory(status)) {
      std::vector<fs::path> files;
      fs::recursive_directory_iterator it(input, error), end;
      for (; !error && it != end; it.increment(error)) {
        const auto name = it->path().filename().string();
        if (!name.empty() && name[0] == '.') {
          if (it->is_directory(error)) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(error)) files.push_back(it->path());
      }
      if (error) throw Error(fmt::format("input '{}': cannot read the folder ({})", input.string(), error.message()));
      std::sort(files.begin(), files.end());
      if (files.empty()) throw Error(fmt::format("input '{}': a folder with no files; expected text files", input.string()));
      documents.insert(documents.end(), files.begin(), files.end());
    } else {
      throw Error(fmt::format("input '{}': {}; expected a text file or a folder of them", input.string(),
                              fs::exists(status) ? "not a file or a folder" : "no such file or folder"));
    }
  }
  if (documents.empty()) throw Error("no input: expected a text file or a folder of them");
  return documents;
}

namespace {

// The run of prepare_token_files: documents are read a block at a time, cut at the
// last safe cut, and each stretch is encoded in parallel and appended to the current
// token file, the training file until the validation part begins.
class Preparer {
 public:
  Preparer(const BpeTokenizer& tokenizer, const PrepareOptions& options)
      : tokenizer_(tokenizer),
        options_(options),
        end_of_text_(*tokenizer.special_token(kEndOfText)),
        block_bytes_(options.block_bytes > 0 ? options.block_bytes
                                             : kEncodePart * static_cast<size_t>(std::max(options.threads, 1))) {}

  PreparedFiles run() {
    const auto documents = list_documents(options_.inputs);
    std::vector<fs::path> val_documents;
    if (!options_.val_inputs.empty()) val_documents = list_documents(options_.val_inputs);
    const bool val = !val_documents.empty() || options_.val_fraction > 0;
    const auto check_not_output = [&](const fs::path& document) {
      for (const auto& out : {options_.out, val ? options_.val_out : fs::path()}) {
        std::error_code error;
        if (!out.empty() && fs::equivalent(document, out, error)) {
          throw Error(fmt::format("output '{}': it is also an input; expected a new file beside the texts",
                                  out.string()));
        }
      }
    };
    std::for_each(documents.begin(), documents.end(), check_not_output);
    std::for_each(val_documents.begin(), val_documents.end(), check_not_output);
    total_ = total_bytes(documents) + total_bytes(val_documents);
    if (options_.val_fraction > 0) {
      val_from_ = static_cast<int64_t>((1.0 - options_.val_fraction) * static_cast<double>(total_));
    }
    const auto vocab_hash = vocabulary_hash(tokenizer_.vocabulary());
    // What a run killed mid-write (SIGKILL, power loss) left beside the outputs.
    removed_partials_ = remove_partial_writes(options_.out) + (val ? remove_partial_writes(options_.val_out) : 0);
    TokenFileWriter train(options_.out, tokenizer_.vocab_size(), vocab_hash);
    std::optional<TokenFileWriter> validation;
    if (val) validation.emplace(options_.val_out, tokenizer_.vocab_size(), vocab_hash);
    writer_ = &train;
    next_writer_ = options_.val_fraction > 0 ? &*validation : nullptr;
    if (!write_documents(documents)) return stopped();
    if (!val_documents.empty()) {
      writer_ = &*validation;
      position_ = 0;
      if (!write_documents(val_documents)) return stopped();
    }
    const auto names = [](const std::vector<fs::path>& inputs) {
      std::string joined;
      for (const auto& input : inputs) joined += (joined.empty() ? "" : ", ") + input.string();
      return joined;
    };
    if (train.header().tokens == 0 || (validation && validation->header().tokens == 0)) {
      throw Error(fmt::format("'{}': no text for the {} file{}", names(options_.inputs),
                              train.header().tokens == 0 ? "training" : "validation",
                              options_.val_fraction > 0 ? "; use a larger --val-fraction or more text" : ""));
    }
    PreparedFiles result;
    result.empty_files = empty_files_;
    result.removed_partials = removed_partials_;
    result.train = train.commit(names(options_.inputs));
    if (validation) {
      result.val = validation->commit(val_documents.empty() ? names(options_.inputs) : names(options_.val_inputs));
    }
    return result;
  }

 private:
  static int64_t total_bytes(const std::vector<fs::path>& files) {
    int64_t total = 0;
    std::error_code error;
    for (const auto& file : files) total += static_cast<int64_t>(fs::file_size(file, error));
    return total;
  }

  PreparedFiles stopped() const {
    PreparedFiles result;
    result.stopped = true;
    return result;  // the writers go without commit: no file
  }

  // Each document's text, with <|endoftext|> before every one but the first; false
  // when should_stop stopped it.
  bool write_documents(const std::vector<fs::path>& documents) {
    bool first = true;
    for (const auto& document : documents) {
      std::error_code error;
      if (fs::file_size(document, error) == 0) {
        ++empty_files_;
        continue;
      }
      if (!first) {
        writer_->append({end_of_text_});
        writer_->add_source_text(kEndOfText);
        position_ += static_cast<int64_t>(kEndOfText.size());
        if (next_writer_ != nullptr && position_ >= val_from_) switch_to_validation();
      }
      first = false;
      writer_->add_document();
      if (!write_document(document)) return false;
    }
    return true;
  }

  bool write_document(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("input '{}': cannot open it", path.string()));
    std::string buffer;
    size_t offset = 0;  // of buffer[0] in the file
    for (bool end = false; !end;) {
      const size_t kept = buffer.size();
      buffer.resize(kept + block_bytes_);
      in.read(buffer.data() + kept, static_cast<std::streamsize>(block_bytes_));
      buffer.resize(kept + static_cast<size_t>(in.gcount()));
      if (in.bad()) throw Error(fmt::format("input '{}': reading failed at byte {}", path.string(), offset + kept));
      end = in.eof();
      size_t cut = end ? buffer.size() : last_safe_cut(buffer, buffer.size());
      if (cut == std::string_view::npos) {
        if (buffer.size() > kMaxUncut) {
          throw Error(fmt::format("input '{}': no place to cut the text in the {} MB from byte {} (no line break or "
                                  "space before a word); expected lines of text",
                                  path.string(), kMaxUncut >> 20, offset));
        }
        continue;
      }
      const std::string_view text(buffer.data(), cut);
      if (const size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
        throw Error(fmt::format("input '{}': invalid UTF-8 at byte {}; expected UTF-8 text", path.string(),
                                offset + bad));
      }
      write_text(text);
      buffer.erase(0, cut);
      offset += cut;
      done_ += static_cast<int64_t>(cut);
      if (options_.on_progress) options_.on_progress(done_, total_);
      if (options_.should_stop && options_.should_stop()) return false;
    }
    return true;
  }

  // A stretch that ends at a safe cut or a document's end; the validation part
  // begins inside it at the first safe cut from val_from_ on.
  void write_text(std::string_view text) {
    const auto end = position_ + static_cast<int64_t>(text.size());
    if (next_writer_ != nullptr && end > val_from_) {
      const auto from = static_cast<size_t>(std::max<int64_t>(val_from_ - position_, 0));
      const size_t cut = from == 0 ? 0 : std::min(first_safe_cut(text, from), text.size());
      encode(text.substr(0, cut));
      text.remove_prefix(cut);
      switch_to_validation();
      if (!text.empty()) writer_->add_document();  // the document goes on there
    }
    encode(text);
  }

  void encode(std::string_view text) {
    if (text.empty()) return;
    writer_->append(encode_in_parallel(tokenizer_, text, options_.threads));
    writer_->add_source_text(text);
    position_ += static_cast<int64_t>(text.size());
  }

  void switch_to_validation() { writer_ = std::exchange(next_writer_, nullptr); }

  const BpeTokenizer& tokenizer_;
  const PrepareOptions& options_;
  const int64_t end_of_text_;
  const size_t block_bytes_;
  TokenFileWriter* writer_ = nullptr;
  TokenFileWriter* next_writer_ = nullptr;  // the validation file, when the inputs' end goes there
  int64_t position_ = 0;                    // bytes of joined text written so far
  int64_t val_from_ = 0;
  int64_t done_ = 0, total_ = 0;            // bytes of the documents read, and in all
  int64_t empty_files_ = 0;
  int removed_partials_ = 0;
};

}  // namespace

PreparedFiles prepare_token_files(const BpeTokenizer& tokenizer, const PrepareOptions& options) {
  if (!tokenizer.special_token(kEndOfText)) {
    throw Error("prepare: the tokenizer has no <|endoftext|> token to separate documents");
  }
  return Preparer(tokenizer, options).run();
}

}  // namespace llm
