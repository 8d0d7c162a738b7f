#include "llm/util/cli.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <iostream>

#include "llm/util/error.h"

namespace llm::cli {
namespace {

// The first line of a LibTorch error, without its C++ backtrace.
std::string first_line(const char* what) {
  std::string text(what);
  return text.substr(0, text.find('\n'));
}

}  // namespace

cxxopts::Options options(const std::string& program, const std::string& description) {
  cxxopts::Options opts(program, description);
  opts.add_options()("h,help", "Print this help and exit")(
      "seed", "Seed of LibTorch's global generator (torch.manual_seed)",
      cxxopts::value<uint64_t>()->default_value("123"))(
      "save-outputs", "Write the inputs and outputs shown to FILE, a torch.save archive (load with torch.load)",
      cxxopts::value<std::string>(), "FILE");
  return opts;
}

int run(cxxopts::Options& options, int argc, char** argv,
        const std::function<void(const cxxopts::ParseResult&)>& body) {
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
    spdlog::error("{} (see --help)", e.what());
    return kBadFlags;
  }
  if (args.count("help") != 0) {
    std::cout << options.help() << std::flush;
    return kOk;
  }
  try {
    torch::manual_seed(args["seed"].as<uint64_t>());
    body(args);
    return kOk;
  } catch (const cxxopts::exceptions::exception& e) {
    spdlog::error("{} (see --help)", e.what());
    return kBadFlags;
  } catch (const Error& e) {
    spdlog::error("{}", e.what());
  } catch (const c10::Error& e) {
    spdlog::error("{}", first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    spdlog::error("{}", first_line(e.what()));
  }
  return kFailed;
}

}  // namespace llm::cli
