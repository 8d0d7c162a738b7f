#include "llm/train/metrics.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

std::string to_json_line(const EvalRecord& r) {
  nlohmann::json json = {{"step", r.step},
                               {"epoch", r.epoch},
                               {"epochs_seen", r.epochs_seen},
                               {"tokens_seen", r.tokens_seen},
                               {"train_loss", r.train_loss},
                               {"val_loss", r.val_loss},
                               {"lr", r.lr}};
  for (const auto& [name, value] : r.figures) json[name] = value;
  return json.dump() + "\n";
}

std::string to_json_line(const AccuracyRecord& r) {
  const nlohmann::json json = {{"epoch", r.epoch},
                               {"examples_seen", r.examples_seen},
                               {"train_accuracy", r.train_accuracy},
                               {"val_accuracy", r.val_accuracy}};
  return json.dump() + "\n";
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


}  // namespace llm
