#include "llm/train/metrics.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

std::string to_json_line(const EvalRecord& r) {
  const nlohmann::json json = {{"step", r.step},
                               {"epoch", r.epoch},
                               {"epochs_seen", r.epochs_seen},
                               {"tokens_seen", r.tokens_seen},
                               {"train_loss", r.train_loss},
                               {"val_loss", r.val_loss},
                               {"lr", r.lr}};
  return json.dump() + "\n";
}

std::string to_json_line(const AccuracyRecord& r) {
  const nlohmann::json json = {{"epoch", r.epoch},
                               {"examples_seen", r.examples_seen},
                               {"train_accuracy", r.train_accuracy},
                               {"val_accuracy", r.val_accuracy}};
  return json.dump() + "\n";
}

EvalRecord parse_eval_record(const std::string& line, const std::string& source) {
  try {
    const auto json = nlohmann::json::parse(line);
    EvalRecord r;
    r.step = json.at("step").get<int64_t>();
    r.epoch = json.at("epoch").get<int64_t>();
    r.epochs_seen = json.at("epochs_seen").get<double>();
    r.tokens_seen = json.at("tokens_seen").get<int64_t>();
    r.train_loss = json.at("train_loss").get<double>();
    r.val_loss = json.at("val_loss").get<double>();
    r.lr = json.at("lr").get<double>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("metrics '{}': not an evaluation record ({})", source, e.what()));
  }
}

MetricsLog::MetricsLog(std::filesystem::path path, const std::vector<EvalRecord>& history) : path_(std::move(path)) {
  std::string text;
  for (const auto& record : history) text += to_json_line(record);
  write_file_atomic(path_, text);
  out_.open(path_, std::ios::app);
  if (!out_) throw Error(fmt::format("metrics '{}': cannot open for appending", path_.string()));
}

void MetricsLog::append(const EvalRecord& record) {
  out_ << to_json_line(record) << std::flush;
  if (!out_) throw Error(fmt::format("metrics '{}': write failed", path_.string()));
}

std::vector<EvalRecord> read_metrics(const std::filesystem::path& path) {
  std::istringstream in(read_file(path));
  std::vector<EvalRecord> records;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!line.empty()) records.push_back(parse_eval_record(line, fmt::format("{}:{}", path.string(), line_number)));
  }
  return records;
}

}  // namespace llm
