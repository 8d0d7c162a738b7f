#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "llm/model/classifier.h"
#include "llm/model/language_model.h"
#include "llm/serve/engine.h"

namespace llm::serve {

/// The Engine of a language model (any family): one worker thread owns the model and
/// runs the queued jobs in turn, each with generate()'s sampling and the KV cache,
/// token by token, so that a cancelled job stops at its next token.
class ModelEngine : public Engine {
 public:
  ModelEngine(LanguageModel model, size_t queue_limit);
  ~ModelEngine() override;
  ModelEngine(const ModelEngine&) = delete;
  ModelEngine& operator=(const ModelEngine&) = delete;

  int64_t context_length() const override { return context_length_; }
  void submit(std::shared_ptr<Job> job) override;
  EngineStatus status() const override;
  void stop() override;

 private:
  void work();
  void run(Job& job);

  LanguageModel model_;
  int64_t context_length_ = 0;
  size_t queue_limit_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::shared_ptr<Job> current_;
  int64_t answers_ = 0;
  std::atomic<int64_t> tokens_{0};
  bool stopping_ = false;
  std::thread worker_;
};

/// The TextClassifier of a chapter-6 classifier: classify_review's reading of a text
/// (cut or padded to max_length, the class token's logits), one request at a time.
class ModelClassifier : public TextClassifier {
 public:
  ModelClassifier(LanguageModel model, const BpeTokenizer& tokenizer, int64_t max_length, ClassToken token);

  const std::vector<std::string>& labels() const override { return labels_; }
  std::vector<double> probabilities(const std::string& text) override;

 private:
  LanguageModel model_;
  const BpeTokenizer& tokenizer_;
  int64_t max_length_;
  ClassToken token_;
  std::vector<std::string> labels_;
  std::mutex mutex_;
};

}  // namespace llm::serve
