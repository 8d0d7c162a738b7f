#pragma once

#include <c10/core/Device.h>
#include <cxxopts.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "llm/util/error.h"

namespace llm::cli {

/// Exit codes of every executable.
enum Exit : int { kOk = 0, kFailed = 1, kBadFlags = 2 };

/// Options with the flags every executable has, --help and --threads, and those of
/// the programs that compute with tensors, --seed, --save-outputs and --device
/// (`tensor_flags`; prepare, which only tokenizes, has none of them).
cxxopts::Options options(const std::string& program, const std::string& description, bool tensor_flags = true);

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

/// The value of a whole-number flag that must be at least 1; a cli::BadFlagValue
/// naming the flag ("--batch must be positive, got 0") when it is not.
int64_t positive_flag(const cxxopts::ParseResult& args, const char* flag);

/// The value of a flag that must be one of `choices`; a cli::BadFlagValue naming the
/// flag and its choices when it is not ("--progress must be auto, always or never,
/// got 'x'").
std::string choice_flag(const cxxopts::ParseResult& args, const char* flag,
                        std::initializer_list<std::string_view> choices);

/// Whether --progress (auto, always or never) asks for a live line on stderr: always,
/// or auto when stderr is a terminal.
bool progress_flag(const cxxopts::ParseResult& args);

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
