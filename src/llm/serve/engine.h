#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llm::serve {

/// How one answer is drawn.
struct Sampling {
  double temperature = 0.0;
  int64_t top_k = 0;
  int64_t max_tokens = 256;
  /// Seeds LibTorch's generator before the answer (the same seed, the same answer).
  std::optional<uint64_t> seed;
};

/// One answer being generated: the model's worker pushes tokens, the request's thread
/// takes them. Either side may end it: the worker when it is done (or fails), the
/// request's thread by cancelling (its client went away, or a stop string appeared).
class Job {
 public:
  Job(std::vector<int64_t> prompt, Sampling sampling, std::vector<int64_t> stop_ids);

  const std::vector<int64_t>& prompt() const { return prompt_; }
  const Sampling& sampling() const { return sampling_; }
  const std::vector<int64_t>& stop_ids() const { return stop_ids_; }

  /// What take() gives: the tokens since the last take, and whether the answer is over.
  struct Taken {
    std::vector<int64_t> tokens;
    bool finished = false;
    bool length = false;  // ended by max tokens or a full context, not by a stop token
    std::string error;    // why the worker failed, when it did
  };
  /// Waits up to `wait` for tokens or the end.
  Taken take(std::chrono::milliseconds wait);

  /// The request's side: the answer is no longer wanted; the worker stops at its next token.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

  /// The worker's side.
  void push(int64_t id);
  void finish(bool length, std::string error = {});
  /// Marks the start of the work on it, and the end of the prompt's forward pass.
  void begin();
  void prompt_done();

  /// Durations, once finished: the prompt's pass and the tokens after it.
  std::chrono::nanoseconds prompt_duration() const;
  std::chrono::nanoseconds eval_duration() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<int64_t> prompt_;
  Sampling sampling_;
  std::vector<int64_t> stop_ids_;
  std::atomic<bool> cancelled_{false};

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<int64_t> tokens_;
  bool finished_ = false;
  bool length_ = false;
  std::string error_;
  Clock::time_point started_{};
  Clock::time_point prompt_done_{};
  Clock::time_point finished_at_{};
};

/// The queue is full: the request is refused (429) rather than kept waiting.
struct QueueFull {
  size_t limit = 0;
};

/// What the worker is doing, and has done since it started.
struct EngineStatus {
  bool busy = false;      // an answer is under way
  size_t waiting = 0;     // jobs queued behind it
  int64_t answers = 0;    // jobs ended (done, stopped or cancelled)
  int64_t tokens = 0;     // tokens generated, over all jobs
};

/// What the server needs of the model: its size limits, and a worker that runs jobs
/// one at a time, in order, from a bounded queue. The model's code (LibTorch) stays
/// behind this interface; the HTTP side knows only tokens.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual int64_t context_length() const = 0;
  /// Queues a job; QueueFull when `queue_limit` jobs already wait.
  virtual void submit(std::shared_ptr<Job> job) = 0;
  virtual EngineStatus status() const = 0;
  /// Ends the worker: the job under way is cancelled, waiting ones end with an error.
  virtual void stop() = 0;
};

/// A classifier's side (chapter 6): a text's class probabilities, one text at a time.
class TextClassifier {
 public:
  virtual ~TextClassifier() = default;
  /// The classes' names, in the head's order.
  virtual const std::vector<std::string>& labels() const = 0;
  /// The softmax of the text's class logits; an llm::Error for a text it cannot read.
  virtual std::vector<double> probabilities(const std::string& text) = 0;
};

/// What a server serves: a model that generates, or a classifier.
struct ServedModel {
  Engine* generator = nullptr;
  TextClassifier* classifier = nullptr;
};

}  // namespace llm::serve
