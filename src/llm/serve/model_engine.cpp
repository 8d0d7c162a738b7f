#include "llm/serve/model_engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "llm/model/generate.h"

namespace llm::serve {

ModelEngine::ModelEngine(LanguageModel model, size_t queue_limit)
    : model_(std::move(model)), context_length_(model_->shape().context_length), queue_limit_(queue_limit) {
  model_->eval();
  worker_ = std::thread([this] { work(); });
}

ModelEngine::~ModelEngine() { stop(); }

void ModelEngine::submit(std::shared_ptr<Job> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      job->finish(false, "the server is stopping");
      return;
    }
    if (queue_.size() >= queue_limit_) throw QueueFull{queue_limit_};
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

EngineStatus ModelEngine::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {current_ != nullptr, queue_.size(), answers_, tokens_.load()};
}

void ModelEngine::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
    if (current_) current_->cancel();
    for (auto& job : queue_) job->finish(false, "the server is stopping");
    queue_.clear();
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ModelEngine::work() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      current_ = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      run(*current_);
    } catch (const std::exception& e) {  // a job's failure ends that job, not the server
      current_->finish(false, e.what());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    current_.reset();
    ++answers_;
  }
}

void ModelEngine::run(Job& job) {
  if (job.cancelled()) return job.finish(false);
  job.begin();
  const auto& sampling = job.sampling();
  // The answer ends where the context does: past it the window would slide.
  const auto prompt_length = static_cast<int64_t>(job.prompt().size());
  const int64_t room = std::max<int64_t>(0, context_length_ - prompt_length);
  const int64_t max_tokens = std::min(sampling.max_tokens, room);
  const auto options = SamplingOptions(max_tokens).temperature(sampling.temperature).top_k(sampling.top_k);
  if (sampling.seed) torch::manual_seed(*sampling.seed);
  TokenGenerator generator(*model_, torch::tensor(job.prompt(), torch::kLong).unsqueeze(0), options);  // [1, n]
  const auto& stops = job.stop_ids();
  for (bool first = true; !job.cancelled(); first = false) {
    const auto next = generator.next();
    if (first) job.prompt_done();
    if (!next) return job.finish(/*length=*/true);
    const auto id = next->item<int64_t>();
    if (std::find(stops.begin(), stops.end(), id) != stops.end()) return job.finish(/*length=*/false);
    job.push(id);
    ++tokens_;
  }
  job.finish(false);
}

ModelClassifier::ModelClassifier(LanguageModel model, const BpeTokenizer& tokenizer, int64_t max_length, ClassToken token)
    : model_(std::move(model)), tokenizer_(tokenizer), max_length_(max_length), token_(token) {
  model_->eval();
  const auto classes = model_->head()->weight.size(0);
  for (int64_t c = 0; c < classes; ++c) {
    labels_.push_back(classes == 2 ? (c == 1 ? "spam" : "not spam") : fmt::format("class {}", c));  // the lesson's words
  }
}

std::vector<double> ModelClassifier::probabilities(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto p = torch::softmax(review_logits(*model_, tokenizer_, text, max_length_, token_).to(torch::kDouble), -1)
                     .to(torch::kCPU)
                     .contiguous();
  return {p.data_ptr<double>(), p.data_ptr<double>() + p.numel()};
}

}  // namespace llm::serve
