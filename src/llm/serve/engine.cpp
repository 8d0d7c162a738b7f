#include "llm/serve/engine.h"

namespace llm::serve {

Job::Job(std::vector<int64_t> prompt, Sampling sampling, std::vector<int64_t> stop_ids)
    : prompt_(std::move(prompt)), sampling_(sampling), stop_ids_(std::move(stop_ids)) {}

Job::Taken Job::take(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait_for(lock, wait, [&] { return !tokens_.empty() || finished_; });
  Taken taken;
  taken.tokens.swap(tokens_);
  taken.finished = finished_;
  taken.length = length_;
  taken.error = error_;
  return taken;
}

void Job::push(int64_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tokens_.push_back(id);
  }
  ready_.notify_all();
}

void Job::finish(bool length, std::string error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    length_ = length;
    error_ = std::move(error);
    finished_at_ = Clock::now();
    if (prompt_done_ == Clock::time_point{}) prompt_done_ = finished_at_;
  }
  ready_.notify_all();
}

void Job::begin() {
  std::lock_guard<std::mutex> lock(mutex_);
  started_ = Clock::now();
}

void Job::prompt_done() {
  std::lock_guard<std::mutex> lock(mutex_);
  prompt_done_ = Clock::now();
}

std::chrono::nanoseconds Job::prompt_duration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return prompt_done_ == Clock::time_point{} ? std::chrono::nanoseconds(0) : prompt_done_ - started_;
}

std::chrono::nanoseconds Job::eval_duration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ ? finished_at_ - prompt_done_ : std::chrono::nanoseconds(0);
}

}  // namespace llm::serve
