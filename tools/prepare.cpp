// Tokenizes a corpus once, on every core, into a token file that training
// memory-maps (ch05-02-train --data FILE): nanoGPT's prepare step, for text far
// larger than memory.
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "llm/cli/cli.h"
#include "llm/text/prepare.h"
#include "llm/util/interrupt.h"
#include "llm/util/progress.h"

namespace {

// corpus.bin -> corpus.val.bin
std::filesystem::path validation_path(const std::filesystem::path& out) {
  auto path = out;
  path.replace_filename(out.stem().string() + ".val" + out.extension().string());
  return path;
}

std::string mb(int64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

void print_file(const char* what, const std::filesystem::path& path, const llm::TokenFileHeader& header) {
  fmt::print("{}: {} ({} tokens as uint{}, {} documents, {} of text, {})\n", what, path.string(), header.tokens,
             8 * header.token_bytes, header.documents, mb(header.source_bytes), header.source_hash);
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto where = [](const std::filesystem::path& p) {
    return std::filesystem::weakly_canonical(std::filesystem::absolute(p)).lexically_normal();
  };
  return where(a) == where(b);
}

// The paths given to `flag`, each whole: cxxopts would split a list flag's value at
// its commas, and a file's name may hold one.
std::vector<std::filesystem::path> paths_of(const cxxopts::ParseResult& args, std::string_view flag) {
  std::vector<std::filesystem::path> paths;
  for (const auto& given : args.arguments()) {
    if (given.key() == flag) paths.emplace_back(given.value());
  }
  return paths;
}

// The inputs and outputs: --data, --out, and the validation text and file.
void set_files(llm::PrepareOptions& prepare, const cxxopts::ParseResult& args) {
  prepare.inputs = paths_of(args, "data");
  if (prepare.inputs.empty()) throw llm::cli::BadFlagValue("no input; expected text files or folders to tokenize");
  if (args.count("out") == 0) throw llm::cli::BadFlagValue("--out is missing; expected the token file to write");
  prepare.out = args["out"].as<std::string>();
  prepare.val_inputs = paths_of(args, "val-data");
  if (args.count("val-fraction") != 0) {
    prepare.val_fraction = args["val-fraction"].as<double>();
    if (!(prepare.val_fraction > 0 && prepare.val_fraction < 1)) {
      throw llm::cli::BadFlagValue(fmt::format("--val-fraction must be between 0 and 1, got {}", prepare.val_fraction));
    }
    if (!prepare.val_inputs.empty()) {
      throw llm::cli::BadFlagValue("--val-fraction and --val-data both choose the validation text; give one");
    }
  }
  const bool validation = prepare.val_fraction > 0 || !prepare.val_inputs.empty();
  if (args.count("val-out") != 0 && !validation) {
    throw llm::cli::BadFlagValue("--val-out needs --val-fraction or --val-data");
  }
  prepare.val_out = args.count("val-out") != 0 ? std::filesystem::path(args["val-out"].as<std::string>())
                                                : validation_path(prepare.out);
  if (validation && same_file(prepare.val_out, prepare.out)) {
    throw llm::cli::BadFlagValue("--val-out is the same file as --out");
  }
}

// The work's size: --threads and --block-mb.
void set_threads(llm::PrepareOptions& prepare, const cxxopts::ParseResult& args) {
  const int64_t cores = std::max(1U, std::thread::hardware_concurrency());
  prepare.threads = static_cast<int>(args.count("threads") != 0 ? llm::cli::positive_flag(args, "threads") : cores);
  if (prepare.threads > cores) {
    throw llm::cli::BadFlagValue(fmt::format("--threads must be at most the machine's {} cores, got {}", cores,
                                             prepare.threads));
  }
  if (args.count("block-mb") != 0) {
    const int64_t block_mb = llm::cli::positive_flag(args, "block-mb");
    if (block_mb > 4096) throw llm::cli::BadFlagValue(fmt::format("--block-mb must be at most 4096, got {}", block_mb));
    prepare.block_bytes = static_cast<size_t>(block_mb) << 20;
  }
}

void print_summary(const llm::PrepareOptions& prepare, const llm::PreparedFiles& files, double seconds) {
  const bool validation = prepare.val_fraction > 0 || !prepare.val_inputs.empty();
  const int64_t bytes = files.train.source_bytes + files.val.source_bytes;
  print_file("Tokens", prepare.out, files.train);
  if (validation) print_file("Validation", prepare.val_out, files.val);
  if (files.empty_files > 0) fmt::print("Left out: {} empty files\n", files.empty_files);
  if (files.removed_partials > 0) {
    fmt::print("Removed: {} half-written files that a killed run left beside the outputs\n", files.removed_partials);
  }
  fmt::print("Time: {:.1f} s, {:.1f} MB/s on {} threads\n", seconds, static_cast<double>(bytes) / 1e6 / seconds,
             prepare.threads);
  if (prepare.val_fraction > 0 && prepare.inputs.size() > 1) {
    fmt::print("Note: --val-fraction cut the inputs joined in order, so validation is the end of the last ones "
               "({} documents; training {}); --val-data gives a validation text of your own\n",
               files.val.documents, files.train.documents);
  }
  fmt::print("Train on it: ch05-02-train --data {}{} --config small.json --sampling random --max-steps N\n"
             "  (small.json: a 4-layer GPT 128 wide that fits a small corpus; without --config it is GPT-2 124M, "
             "whose checkpoints take about 2 GB)\n",
             prepare.out.string(), validation ? " --val-data " + prepare.val_out.string() : "");
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options(
      "prepare", "Tokenize text files (or folders of them) with GPT-2's BPE into a token file for training; "
                 "documents are separated by <|endoftext|>",
      /*common=*/0);
  options.add_options("Input")("data", "Text files, or folders of them (read recursively, by name); the "
                               "arguments without a flag",
                               cxxopts::value<std::vector<std::string>>(), "PATH...")(
      "val-data", "Text files or folders for a validation file (instead of --val-fraction; repeatable)",
      cxxopts::value<std::vector<std::string>>(), "PATH");
  options.add_options("Output")("o,out", "The token file", cxxopts::value<std::string>(), "FILE")(
      "val-fraction", "Also write the inputs' last fraction of text (from a safe cut on) to a validation file",
      cxxopts::value<double>(), "F")(
      "val-out", "The validation token file (default: FILE with .val before its extension)",
      cxxopts::value<std::string>(), "FILE")(
      "j,threads", "Tokenizing threads (default: every core)", cxxopts::value<int64_t>(), "N")(
      "block-mb", "Megabytes of text read per round, all threads together (default: 1 per thread); memory stays "
      "a few times this",
      cxxopts::value<int64_t>(), "N");
  llm::cli::add_progress_flag(options);
  options.parse_positional({"data"});
  options.positional_help("PATH... -o FILE");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    llm::PrepareOptions prepare;
    set_files(prepare, args);
    set_threads(prepare, args);

    const auto tokenizer = llm::BpeTokenizer::gpt2();
    const llm::StopOnSignal stop;
    llm::ProgressLine progress(llm::cli::progress_flag(args));
    const auto started = std::chrono::steady_clock::now();
    const auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    prepare.on_progress = [&](int64_t done, int64_t total) {
      const double s = seconds(), rate = static_cast<double>(done) / s;
      progress.update(fmt::format("{} of {} ({:.0f}%) | {:.1f} MB/s | {} left", mb(done), mb(total),
                                  total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
                                  rate / 1e6, llm::format_duration(static_cast<double>(total - done) / rate)),
                      done == total);
    };
    prepare.should_stop = [] { return llm::StopOnSignal::requested(); };
    const auto files = llm::prepare_token_files(tokenizer, prepare);
    progress.clear();
    if (files.stopped) {
      throw llm::Stopped(fmt::format("stopped by {}; nothing was written (run it again to start over)",
                                     llm::StopOnSignal::signal_name()),
                         128 + llm::StopOnSignal::signal_number());
    }
    print_summary(prepare, files, seconds());
  });
}
