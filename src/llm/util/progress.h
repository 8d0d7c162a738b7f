#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace llm {

/// What the live progress line shows.
struct ProgressInfo {
  int64_t step = 0;         // optimizer steps done
  int64_t total_steps = 0;  // in the whole run
  int64_t epoch = 0;        // from 1
  int64_t num_epochs = 0;
  double loss = 0;
  double tokens_per_second = 0;  // or examples, as `unit` says
  double seconds_left = 0;
  const char* unit = "tok";  // "ex" when a classifier counts examples
};

/// "step 12/90 (13%) | epoch 2/10 | loss 6.124 | 1,234 tok/s | 0:01:05 left"
std::string format_progress(const ProgressInfo& info);

/// "12/110 entries (10%) | 1.60 entries/s | 0:01:02 left": `done` of `total` things
/// in `seconds`, as tqdm shows a loop.
std::string format_count_progress(int64_t done, int64_t total, double seconds, const char* unit);

/// "1:02:03" (hours unbounded); "?" when not finite.
std::string format_duration(double seconds);

/// How progress shows: not at all; as a live line on stderr that each update rewrites
/// in place (a terminal); or as a plain line on stdout every few seconds (a log, a
/// pipe), so that no long step is silent there either.
enum class ProgressMode { kOff, kLive, kLog };

/// Progress as `mode` shows it; other output should call clear() first.
class ProgressLine {
 public:
  /// Seconds between two lines of ProgressMode::kLog.
  static constexpr int kLogSeconds = 5;

  explicit ProgressLine(ProgressMode mode);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// At most ten redraws a second (live), or a line every kLogSeconds (log).
  void update(const ProgressInfo& info);
  /// The same for any line; `last` draws it whatever the time since the last one.
  void update(const std::string& line, bool last = false);
  /// Erases the line so that ordinary output can follow.
  void clear();

  /// Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  ProgressMode mode_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace llm
