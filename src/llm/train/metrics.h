#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace llm {

/// One evaluation during training: what the lesson prints and plots.
struct EvalRecord {
  int64_t step = 0;         // the optimizer step just taken, from 0 (the lesson's global_step)
  int64_t epoch = 0;        // the epoch under way, from 1
  double epochs_seen = 0;   // epochs done, with the fraction of the current one
  int64_t tokens_seen = 0;  // input tokens trained on so far
  double train_loss = 0;
  double val_loss = 0;
  double lr = 0;
  /// A task's own figures of each split, by name ("train_chosen_reward", ...; DPO's).
  std::vector<std::pair<std::string, double>> figures;
};

/// A classification run's accuracies after an epoch (lesson 6.7): the share of
/// eval_iter batches of each split classified right.
struct AccuracyRecord {
  int64_t epoch = 0;          // the epoch just finished, from 1
  int64_t examples_seen = 0;  // training examples so far
  double train_accuracy = 0;
  double val_accuracy = 0;
};

/// One JSON object per line.
std::string to_json_line(const EvalRecord& record);
std::string to_json_line(const AccuracyRecord& record);

/// Training metrics as JSON lines: one object per evaluation, flushed as it is
/// written, so a plot or a `tail -f` sees the run as it goes.
class MetricsLog {
 public:
  /// Starts `path` over with `history` (the records of a resumed run; none for a new
  /// one), written atomically, and opens it for appending.
  MetricsLog(std::filesystem::path path, const std::vector<EvalRecord>& history);

  void append(const EvalRecord& record);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

}  // namespace llm
