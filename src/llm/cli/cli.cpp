#include "llm/cli/cli.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <malloc.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/memory.h"
#include "llm/util/progress.h"
#include "llm/util/utf8.h"

namespace llm::cli {
namespace {

// The common flags each program's options() added, by program name, for run().
std::map<std::string, unsigned>& common_flags_of() {
  static std::map<std::string, unsigned> common;
  return common;
}

// An error message as the terminal shows it: it may echo outside bytes (a file's
// text, a server's answer), so its length is bounded and control characters escaped.
std::string said(std::string_view message) { return printable(shortened(message, 2000)); }

// The flags that name a file a program writes.
constexpr std::array<std::string_view, 6> kOutputFlags = {"out",          "html",
                                                           "png",          "save-state-dict",
                                                           "save-outputs", "save-safetensors"};

// A flag's value, given or its default; nullopt when the program has no such flag or
// it has neither.
std::optional<std::string> flag_value(const cxxopts::ParseResult& args, std::string_view flag) {
  try {
    const auto& value = args[std::string(flag)];
    if (value.count() == 0 && !value.has_default()) return std::nullopt;
    return value.as<std::string>();
  } catch (const cxxopts::exceptions::exception&) {
    return std::nullopt;  // a program without this flag
  }
}

// The folders made for a program's outputs, outermost first. A program that ends in an
// error removes those it left empty, so a refused run leaves no trace.
std::vector<std::filesystem::path>& made_folders() {
  static std::vector<std::filesystem::path> made;
  return made;
}

void remove_folders_left_empty() {
  std::error_code ignored;  // a folder that holds something stays
  for (auto folder = made_folders().rbegin(); folder != made_folders().rend(); ++folder) {
    std::filesystem::remove(*folder, ignored);
  }
  made_folders().clear();
}

// `folder`, where the output `flag` names goes, made now when it is not there: a step
// makes its output folder before its work rather than failing after it.
void make_folder(const std::filesystem::path& folder, std::string_view flag, const std::filesystem::path& output) {
  std::error_code error;
  if (folder.empty() || std::filesystem::is_directory(folder, error)) return;
  std::vector<std::filesystem::path> missing;
  for (auto f = folder; !f.empty() && !std::filesystem::exists(f, error); f = f.parent_path()) missing.push_back(f);
  std::filesystem::create_directories(folder, error);
  if (error) {
    throw Error(fmt::format("--{} '{}': {} cannot be made ({})", flag, output.string(),
                            output == folder ? "the folder" : fmt::format("its folder '{}'", folder.string()),
                            error.message()));
  }
  made_folders().insert(made_folders().end(), missing.rbegin(), missing.rend());
}

// Every output file a flag names (given, or its default) checked before the work
// starts: its folder is made if need be and takes files, it is no symlink or device,
// and it is no file that another flag names, such as --checkpoint or --config
// (check_output_file).
void check_output_flags(const cxxopts::ParseResult& args) {
  const auto is_output = [](const std::string& key) {
    return std::find(kOutputFlags.begin(), kOutputFlags.end(), key) != kOutputFlags.end();
  };
  std::vector<std::filesystem::path> inputs;
  for (const auto& given : args.arguments()) {
    if (!is_output(given.key()) && !given.value().empty()) inputs.emplace_back(given.value());
  }
  for (const auto flag : kOutputFlags) {
    const auto path = flag_value(args, flag);
    if (!path) continue;
    make_folder(std::filesystem::path(*path).parent_path(), flag, *path);
    try {
      check_output_file(*path, inputs);
    } catch (const Error& e) {
      throw Error(fmt::format("--{}: {}", flag, e.what()));
    }
  }
}

// cxxopts's message in plain quotes. A value that fails to parse is named with its
// flag, which cxxopts leaves out; a flag's old name points to its new one.
std::string flag_error(const cxxopts::exceptions::exception& e, int argc, char** argv) {
  std::string message = e.what();
  for (const std::string curly : {"\u2018", "\u2019"}) {
    for (size_t at; (at = message.find(curly)) != std::string::npos;) message.replace(at, curly.size(), "'");
  }
  if (dynamic_cast<const cxxopts::exceptions::no_such_option*>(&e) != nullptr) {
    const size_t open = message.find('\'');
    const std::string_view name = std::string_view(message).substr(open + 1, message.rfind('\'') - open - 1);
    for (const auto& renamed : kRenamedFlags) {
      if (name == renamed.old_name) return fmt::format("--{} is now --{}", renamed.old_name, renamed.name);
    }
  }
  if (dynamic_cast<const cxxopts::exceptions::incorrect_argument_type*>(&e) != nullptr) {
    const size_t open = message.find('\'');
    const std::string value = message.substr(open + 1, message.rfind('\'') - open - 1);
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      const size_t eq = arg.find('=');
      if (arg.rfind("--", 0) == 0 && eq != std::string::npos && arg.substr(eq + 1) == value) {
        return fmt::format("{}: '{}' is not a valid value", arg.substr(0, eq), value);
      }
      if (arg == value && i > 1) return fmt::format("{}: '{}' is not a valid value", argv[i - 1], value);
    }
  }
  return message;
}

// Training frees and reallocates the same large tensors (logits, gradients, AdamW's
// temporaries) every step. glibc maps each block above 32 MiB on its own and unmaps
// it when freed, and gives freed heap back to the kernel, so every step faults the
// same memory in again, page by page. Keeping it all in the heap halves a small
// model's step time and cuts 124M's by about a third on 2 cores.
void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);  // never trim
  mallopt(M_TOP_PAD, 512 << 20);
}

// LibTorch runs bfloat16 matrix products through oneDNN, which keeps the last 1,024
// kernels it made, one per shape, each with its buffers. Decoding with a KV cache makes
// new shapes at every token (the cache is one position longer), so that cache fills
// with kernels never used again: GPT-2 124M with grouped-query attention held 2.3 GB
// after 2,560 tokens instead of 0.6 GB. One step's products need a handful of shapes.
void bound_kernel_cache() {
  constexpr int kKernels = 16;
  if (dnnl_set_primitive_cache_capacity(kKernels) != dnnl_success) {
    spdlog::warn("oneDNN's kernel cache could not be bounded; long bfloat16 generations may hold more memory");
  }
}

// LibTorch's allocation failure ("[enforce fail at alloc_cpu.cpp:75] ... you tried to
// allocate N bytes ...") as one line that says what happened.
std::optional<std::string> out_of_memory_message(const std::string& what) {
  constexpr std::string_view kTried = "can't allocate memory: you tried to allocate ";
  const size_t at = what.find(kTried);
  if (at == std::string::npos) return std::nullopt;
  const double bytes = std::strtod(what.c_str() + at + kTried.size(), nullptr);
  return fmt::format("out of memory: a tensor of {} did not fit (this machine has {}); the sizes asked for (flags, "
                     "config or input) are too large",
                     format_bytes(bytes), format_bytes(static_cast<double>(physical_memory())));
}

}  // namespace

cxxopts::Options options(const std::string& program, const std::string& description, unsigned common) {
  common_flags_of()[program] = common;
  cxxopts::Options opts(program, description);
  opts.add_options()("h,help", "Print this help and exit");
  if ((common & kThreadsFlag) != 0) {
    opts.add_options()(
        "threads",
        "LibTorch's intra-op threads, for element-wise ops, softmax and the bfloat16 and int8 decode kernels; "
        "float32 matrix products run on the BLAS's own threads (all cores, or OPENBLAS_NUM_THREADS). More than 1 "
        "spin-waits against the BLAS's threads and made training slower on every machine measured "
        "(docs/benchmarks.md)",
        cxxopts::value<int>()->default_value("1"), "N");
  }
  if ((common & kSeedFlag) != 0) {
    opts.add_options()("seed", "Seed of LibTorch's global generator (torch.manual_seed)",
                       cxxopts::value<uint64_t>()->default_value("123"), "N");
  }
  if ((common & kSaveOutputsFlag) != 0) {
    opts.add_options()("save-outputs",
                       "Write the inputs and outputs shown to FILE, a torch.save archive (load with torch.load)",
                       cxxopts::value<std::string>(), "FILE");
  }
  if ((common & kDeviceFlag) != 0) {
    opts.add_options()("device",
                       "Where the models and tensors live: auto (CUDA when this LibTorch has it and sees a GPU), cpu, "
                       "cuda or cuda:N",
                       cxxopts::value<std::string>()->default_value("auto"), "DEVICE");
  }
  return opts;
}

c10::Device device(const cxxopts::ParseResult& args) {
  const auto name = args["device"].as<std::string>();
  const bool cuda = torch::cuda::is_available();
  if (name == "auto") return cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (name == "cpu") return c10::kCPU;
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!cuda) {
      throw cxxopts::exceptions::exception(fmt::format(
          "--device {}: this LibTorch has no CUDA, or sees no GPU; use --device cpu (or auto)", name));
    }
    const auto index = name == "cuda" ? std::string("0") : name.substr(5);
    const bool digits = !index.empty() && index.size() < 4 &&
                        index.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(index) >= static_cast<int>(torch::cuda::device_count())) {
      throw cxxopts::exceptions::exception(fmt::format("--device {}: there are {} CUDA devices, numbered from 0", name,
                                                       torch::cuda::device_count()));
    }
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(std::stoi(index)));
  }
  throw cxxopts::exceptions::exception(
      fmt::format("--device: expected auto, cpu, cuda or cuda:N, got '{}'", name));
}

uint64_t seed(const cxxopts::ParseResult& args) { return args["seed"].as<uint64_t>(); }

std::filesystem::path config_flag(const cxxopts::ParseResult& args, const char* flag) {
  const auto given = args[flag].as<std::string>();
  auto path = find_config(given);
  if (path != std::filesystem::path(given)) spdlog::info("--{} {}: not in this folder; using {}", flag, given, path.string());
  return path;
}

std::filesystem::path out_dir(const cxxopts::ParseResult& args) {
  const std::filesystem::path dir = args["out-dir"].as<std::string>();
  make_folder(dir, "out-dir", dir);
  return dir;
}

int64_t positive_flag(const cxxopts::ParseResult& args, const char* flag) {
  const auto value = args[flag].as<int64_t>();
  if (value < 1) throw BadFlagValue(fmt::format("--{} must be positive, got {}", flag, value));
  return value;
}

std::string choice_flag(const cxxopts::ParseResult& args, const char* flag,
                        std::initializer_list<std::string_view> choices) {
  auto value = args[flag].as<std::string>();
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  std::string listed;
  for (auto it = choices.begin(); it != choices.end(); ++it) {
    if (it != choices.begin()) listed += std::next(it) == choices.end() ? " or " : ", ";
    listed += *it;
  }
  throw BadFlagValue(fmt::format("--{} must be {}, got '{}'", flag, listed, value));
}

void add_progress_flag(cxxopts::Options& options, const std::string& group) {
  options.add_options(group)("progress",
                             "Progress: auto (a live line on stderr on a terminal, else a line on stdout every 5 s), "
                             "always (the live line) or never",
                             cxxopts::value<std::string>()->default_value("auto"), "WHEN");
}

ProgressMode progress_flag(const cxxopts::ParseResult& args) {
  const auto when = choice_flag(args, "progress", {"auto", "always", "never"});
  if (when == "never") return ProgressMode::kOff;
  return when == "always" || ProgressLine::stderr_is_terminal() ? ProgressMode::kLive : ProgressMode::kLog;
}

std::string read_input_text(const std::string& path, double bytes_per_text_byte) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error) {
    check_fits_in_memory(static_cast<double>(size) * bytes_per_text_byte,
                         fmt::format("input '{}' ({}), which this lesson step holds in memory about {:g} times over",
                                     path, format_bytes(static_cast<double>(size)), bytes_per_text_byte));
  }
  return read_text_file(path);  // it names a missing or unreadable file
}

// LibTorch's intra-op threads of --threads: no more than the cores (more only wait on
// each other).
void set_threads(const cxxopts::ParseResult& args) {
  const int threads = args["threads"].as<int>();
  if (threads < 1) {
    throw cxxopts::exceptions::exception(fmt::format("--threads: expected a positive number, got {}", threads));
  }
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (threads > cores) {
    throw cxxopts::exceptions::exception(fmt::format("--threads: at most the machine's {} cores, got {}", cores, threads));
  }
  torch::set_num_threads(threads);
}

// What every program does before its work: the common flags it has (`common`:
// --threads, --device, --seed) applied, and its outputs checked.
void set_up(const cxxopts::ParseResult& args, unsigned common) {
  keep_freed_memory();
  bound_kernel_cache();
  if ((common & kThreadsFlag) != 0) set_threads(args);
  if ((common & kDeviceFlag) != 0) device(args);  // a bad --device is a flag error before anything runs
  if ((common & kSeedFlag) != 0) torch::manual_seed(seed(args));
  check_output_flags(args);
}

namespace {

// The set-up and the body, every error one line: the exit code.
int set_up_and_run(const cxxopts::ParseResult& args, const std::string& program, int argc, char** argv,
                   const std::function<void(const cxxopts::ParseResult&)>& body) {
  try {
    const auto common = common_flags_of().find(program);
    set_up(args, common != common_flags_of().end() ? common->second : 0U);
    body(args);
    return kOk;
  } catch (const cxxopts::exceptions::exception& e) {
    spdlog::error("{} (see --help)", said(flag_error(e, argc, argv)));
    return kBadFlags;
  } catch (const BadFlagValue& e) {
    spdlog::error("{} (see --help)", said(e.what()));
    return kBadFlags;
  } catch (const Stopped& e) {
    spdlog::warn("{}", said(e.what()));
    return e.exit_code;
  } catch (const Error& e) {
    spdlog::error("{}", said(e.what()));
  } catch (const c10::Error& e) {
    spdlog::error("{}", said(out_of_memory_message(e.what_without_backtrace()).value_or(first_line(e.what_without_backtrace()))));
  } catch (const std::bad_alloc&) {
    spdlog::error("out of memory: the sizes asked for (flags, config or input) need more than this machine's {}",
                  format_bytes(static_cast<double>(physical_memory())));
  } catch (const std::exception& e) {
    spdlog::error("{}", said(first_line(e.what())));
  }
  return kFailed;
}

}  // namespace

int run(cxxopts::Options& options, int argc, char** argv,
        const std::function<void(const cxxopts::ParseResult&)>& body) {
  // Each line leaves when it is printed, also into a file or a pipe: a long run's log
  // shows its progress, and a killed run keeps what it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  const std::string program = options.program();
  auto logger = spdlog::stderr_color_st(program);
  logger->set_pattern("%n: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  cxxopts::ParseResult args;
  try {
    args = options.parse(argc, argv);
    if (!args.unmatched().empty()) {
      throw cxxopts::exceptions::exception(fmt::format("unexpected argument '{}'", args.unmatched().front()));
    }
  } catch (const cxxopts::exceptions::exception& e) {
    spdlog::error("{} (see --help)", said(flag_error(e, argc, argv)));
    return kBadFlags;
  }
  if (args.count("help") != 0) {
    std::cout << options.help() << std::flush;
    return kOk;
  }
  const int code = set_up_and_run(args, program, argc, argv, body);
  if (code != kOk) remove_folders_left_empty();
  return code;
}

}  // namespace llm::cli
