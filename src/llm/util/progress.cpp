#include "llm/util/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "llm/util/show.h"

namespace llm {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<int64_t>(std::llround(seconds));
  return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
}

std::string format_progress(const ProgressInfo& p) {
  const int64_t percent = p.total_steps > 0 ? p.step * 100 / p.total_steps : 0;
  return fmt::format("step {}/{} ({}%) | epoch {}/{} | loss {:.3f} | {} {}/s | {} left", p.step, p.total_steps,
                     percent, p.epoch, p.num_epochs, p.loss,
                     thousands(static_cast<int64_t>(std::llround(p.tokens_per_second))), p.unit,
                     format_duration(p.seconds_left));
}

ProgressLine::ProgressLine(ProgressMode mode) : mode_(mode) {}

ProgressLine::~ProgressLine() { clear(); }

bool ProgressLine::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void ProgressLine::update(const ProgressInfo& info) {
  if (mode_ != ProgressMode::kOff) update(format_progress(info), info.step >= info.total_steps);
}

void ProgressLine::update(const std::string& line, bool last) {
  const auto now = std::chrono::steady_clock::now();
  switch (mode_) {
    case ProgressMode::kOff:
      return;
    case ProgressMode::kLive:
      if (shown_ && now - last_ < std::chrono::milliseconds(100) && !last) return;
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
      shown_ = true;
      break;
    case ProgressMode::kLog:  // the first line kLogSeconds after the start, not at once
      if (now - last_ < std::chrono::seconds(kLogSeconds)) return;
      std::fprintf(stdout, "%s\n", line.c_str());
      std::fflush(stdout);
      break;
  }
  last_ = now;
}

std::string format_count_progress(int64_t done, int64_t total, double seconds, const char* unit) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  return fmt::format("{}/{} {} ({}%) | {:.2f} {}/s | {} left", done, total, unit, total > 0 ? done * 100 / total : 0,
                     rate, unit, format_duration(rate > 0 ? static_cast<double>(total - done) / rate : NAN));
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace llm
