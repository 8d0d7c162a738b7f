// Lesson 7.8: scoring the responses with a larger model. Each entry of
// instruction-data-with-response.json (ch07-04-responses) goes to an Ollama server's
// chat API (POST /api/chat, model llama3, the lesson's options) with the lesson's
// prompt, and the integer it answers is the entry's score from 0 to 100. An answer
// that is not a number is reported and left out, as in the lesson; so is an entry the
// server does not answer in time (--timeout bounds the whole exchange), breaks off,
// answers at too great a length or with what is not Ollama's. Then "Number of scores:
// 110 of 110" and the average. What the server says reaches the terminal with its
// control characters escaped.
#include <fmt/format.h>

#include <chrono>
#include <string>
#include <vector>

#include "llm/cli/cli.h"
#include "llm/io/ollama.h"
#include "llm/io/tensor_archive.h"
#include "llm/text/instruction_data.h"
#include "llm/util/error.h"
#include "llm/util/interrupt.h"
#include "llm/util/progress.h"
#include "llm/util/utf8.h"

namespace {

// One Ollama model behind one endpoint: the lesson's query_model, with what to do when
// nothing answers.
struct Scorer {
  llm::HttpEndpoint endpoint;
  std::string model;
  std::chrono::milliseconds timeout;

  std::string ask(const std::string& prompt) const {
    try {
      return llm::query_model(prompt, model, endpoint, timeout);
    } catch (const llm::HttpError& e) {
      if (e.kind != llm::HttpError::Kind::kUnreachable) throw;
      throw llm::Error(fmt::format("{}: is Ollama running? (ollama serve; then ollama pull {}; or --host/--port)",
                                   e.what(), model));
    }
  }
};

Scorer scorer_from_flags(const cxxopts::ParseResult& args) {
  const auto port = args["port"].as<int64_t>();
  if (port < 1 || port > 65535) throw llm::cli::BadFlagValue(fmt::format("--port must be 1..65535, got {}", port));
  const auto seconds = args["timeout"].as<double>();
  if (!(seconds > 0 && seconds <= 86400)) {
    throw llm::cli::BadFlagValue(fmt::format("--timeout must be in (0, 86400] seconds, got {}", seconds));
  }
  return {llm::HttpEndpoint{args["host"].as<std::string>(), static_cast<int>(port)}, args["model"].as<std::string>(),
          std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000))};
}

// The entries of ch07-04-responses' output, each with its model_response.
std::vector<llm::InstructionEntry> read_responses(const std::string& path) {
  auto entries = llm::read_instruction_data(path);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].model_response) {
      throw llm::Error(fmt::format("'{}': entry {} has no \"model_response\"; expected ch07-04-responses' output",
                                   path, i));
    }
  }
  return entries;
}

// The lesson's generate_model_scores: each entry's score, in order; an entry whose
// answer is not a number, or that the server does not answer, is reported and left out.
std::vector<int64_t> generate_model_scores(const std::vector<llm::InstructionEntry>& entries, const Scorer& scorer,
                                           llm::ProgressMode show_progress) {
  const llm::StopOnSignal stop;
  llm::ProgressLine bar(show_progress);
  const auto started = std::chrono::steady_clock::now();
  std::vector<int64_t> scores;
  const auto stopped = [&](size_t done) {
    bar.clear();
    return llm::Stopped(fmt::format("stopped by {} after {} of {} entries", llm::StopOnSignal::signal_name(), done,
                                    entries.size()),
                        128 + llm::StopOnSignal::signal_number());
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    if (llm::StopOnSignal::requested()) throw stopped(i);
    std::string answer;
    try {
      answer = scorer.ask(llm::score_prompt(entries[i]));
    } catch (const llm::HttpError& e) {  // one entry lost; the next may be answered
      if (e.kind == llm::HttpError::Kind::kStopped) throw stopped(i);
      bar.clear();
      fmt::print("Could not score entry {}: {}\n", i, llm::printable(e.what()));
      continue;
    }
    if (const auto score = llm::parse_score(answer)) {
      scores.push_back(*score);
    } else {
      bar.clear();
      fmt::print("Could not convert score: {}\n", llm::printable(llm::shortened(answer, 200)));
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    bar.update("Scoring entries: " + llm::format_count_progress(static_cast<int64_t>(i + 1),
                                                               static_cast<int64_t>(entries.size()), elapsed,
                                                               "entries"),
               i + 1 == entries.size());
  }
  bar.clear();
  return scores;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch07-05-evaluate", "Lesson 7.8: score the responses with a larger model (Ollama)",
                                   llm::cli::kSaveOutputsFlag);
  options.add_options()("data", "Entries with a model_response (ch07-04-responses' output)",
                        cxxopts::value<std::string>()->default_value("instruction-data-with-response.json"), "FILE")(
      "host", "Where Ollama listens", cxxopts::value<std::string>()->default_value("localhost"), "HOST")(
      "port", "Ollama's port", cxxopts::value<int64_t>()->default_value("11434"), "N")(
      "model", "The model that scores", cxxopts::value<std::string>()->default_value("llama3"), "NAME")(
      "timeout", "Seconds one question may take, from the connection to the answer's last byte",
      cxxopts::value<double>()->default_value("120"), "X")(
      "query", "Only ask this one question and print the answer (the lesson's \"What do Llamas eat?\")",
      cxxopts::value<std::string>(), "TEXT");
  llm::cli::add_progress_flag(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto scorer = scorer_from_flags(args);
    const auto show_progress = llm::cli::progress_flag(args);
    if (args.count("query") != 0) {
      fmt::print("{}\n", llm::printable(scorer.ask(args["query"].as<std::string>())));
      return;
    }
    const auto path = args["data"].as<std::string>();
    const auto entries = read_responses(path);
    const auto scores = generate_model_scores(entries, scorer, show_progress);
    fmt::print("Number of scores: {} of {}\n", scores.size(), entries.size());
    if (scores.empty()) throw llm::Error(fmt::format("no entry of '{}' got a score", path));
    double sum = 0;
    for (const auto s : scores) sum += static_cast<double>(s);
    fmt::print("Average score: {:.2f}\n", sum / static_cast<double>(scores.size()));
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(), {{"scores", torch::tensor(scores, torch::kLong)}});
    }
  });
}
