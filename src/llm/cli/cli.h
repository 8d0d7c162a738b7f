#pragma once

#include <c10/core/Device.h>
#include <cxxopts.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "llm/util/error.h"
#include "llm/util/progress.h"

namespace llm::cli {

/// Exit codes of every executable.
enum Exit : int { kOk = 0, kFailed = 1, kBadFlags = 2 };

/// A flag's old name and the one every executable now uses for the same idea.
struct RenamedFlag {
  std::string_view old_name;
  std::string_view name;
};

/// The project's one vocabulary of flags, kept here: each idea has one name across the
/// executables (an output folder is --out-dir, what a step reads is --data, ...). An
/// old name given is refused with a pointer to its new one, exit 2; no executable
/// defines one (tests/cli/flag_vocabulary.sh walks every --help).
inline constexpr std::array<RenamedFlag, 9> kRenamedFlags = {{
    {"output-dir", "out-dir"},
    {"input", "data"},
    {"val-input", "val-data"},
    {"data-dir", "data"},
    {"file", "data"},
    {"responses", "data"},
    {"batch", "batch-size"},
    {"sample-tokens", "max-new-tokens"},
    {"jobs", "threads"},
}};

/// The common flags a program takes besides --help: only those it uses, so that no
/// flag is accepted and ignored.
enum CommonFlags : unsigned {
  kThreadsFlag = 1U << 0,      // --threads: LibTorch's intra-op threads
  kSeedFlag = 1U << 1,         // --seed: LibTorch's global generator
  kDeviceFlag = 1U << 2,       // --device: where the tensors live
  kSaveOutputsFlag = 1U << 3,  // --save-outputs: what it shows, as a torch.save archive
  kTensorFlags = kThreadsFlag | kSeedFlag | kDeviceFlag | kSaveOutputsFlag,  // a step that computes with tensors
};

/// Options with --help and the `common` flags (a tokenizer that draws nothing has only
/// --save-outputs; prepare has none).
cxxopts::Options options(const std::string& program, const std::string& description, unsigned common = kTensorFlags);

/// A flag's value that cannot be used (--batch-size 0, --dist-timeout 0): an
/// llm::Error that run() reports as a flag error, exit 2.
struct BadFlagValue : Error {
  using Error::Error;
};

/// The device of --device: "auto" is the first CUDA device when this LibTorch was
/// built with CUDA and sees a GPU, else the CPU; "cpu"; "cuda" or "cuda:N". Asking
/// for CUDA where there is none is a flag error.
c10::Device device(const cxxopts::ParseResult& args);

/// The seed of --seed.
uint64_t seed(const cxxopts::ParseResult& args);

/// The config file a flag names (--config, --train-config), found as find_config finds
/// it: here, else in the installed project's folders, saying so on stderr.
std::filesystem::path config_flag(const cxxopts::ParseResult& args, const char* flag);

/// The folder of --out-dir, made now with its parents, so that a step's results have
/// their place before its work starts; an llm::Error naming it when it cannot be made.
std::filesystem::path out_dir(const cxxopts::ParseResult& args);

/// The value of a whole-number flag that must be at least 1; a cli::BadFlagValue
/// naming the flag ("--batch must be positive, got 0") when it is not.
int64_t positive_flag(const cxxopts::ParseResult& args, const char* flag);

/// The value of a flag that must be one of `choices`; a cli::BadFlagValue naming the
/// flag and its choices when it is not ("--progress must be auto, always or never,
/// got 'x'").
std::string choice_flag(const cxxopts::ParseResult& args, const char* flag,
                        std::initializer_list<std::string_view> choices);

/// Declares --progress WHEN (auto, always or never; default auto) in `group`.
void add_progress_flag(cxxopts::Options& options, const std::string& group = "");

/// How --progress shows progress: always a live line on stderr; never none; auto a
/// live line when stderr is a terminal, else a line on stdout every few seconds
/// (ProgressLine).
ProgressMode progress_flag(const cxxopts::ParseResult& args);

/// The UTF-8 text file a lesson step reads whole (read_text_file), refused up front
/// with an llm::Error naming it when the step, which keeps about
/// `bytes_per_text_byte` bytes per byte of text, would not fit in memory.
std::string read_input_text(const std::string& path, double bytes_per_text_byte);

/// Parses the flags, sets LibTorch's intra-op threads (--threads) and seeds its global
/// generator (--seed), runs `body`, and turns what goes wrong into one line on stderr
/// and an exit code: bad flags or flag values 2, bad input or any other failure 1, an
/// llm::Stopped its exit code. --help prints the usage and exits 0.
int run(cxxopts::Options& options, int argc, char** argv,
        const std::function<void(const cxxopts::ParseResult&)>& body);

}  // namespace llm::cli
