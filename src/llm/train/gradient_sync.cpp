#include "llm/train/gradient_sync.h"

#include <torch/csrc/autograd/function_hook.h>

#include <functional>

namespace llm {

// The buckets and their progress through one backward.
struct GradientSync::State {
  struct Bucket {
    std::vector<torch::Tensor> parameters;
    int64_t pending = 0;  // gradients not yet accumulated in this backward
    torch::Tensor flat;
    std::shared_ptr<ProcessGroup::Pending> reduce;
  };
  ProcessGroup* group = nullptr;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;  // by parameter index
  size_t next = 0;                // the next bucket to start
  size_t started_in_backward = 0;
  bool armed = false;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;  // kept, so that the hooks stay

  void start(Bucket& bucket) {
    std::vector<torch::Tensor> grads;
    for (auto& p : bucket.parameters) {
      grads.push_back(p.grad().defined() ? p.grad().reshape(-1) : torch::zeros({p.numel()}, p.options()));
    }
    bucket.flat = torch::cat(grads).div_(static_cast<double>(group->world_size()));
    bucket.reduce = group->start_all_reduce_sum(bucket.flat);
  }

  // After backward accumulated parameter `index`'s gradient: start each bucket, in
  // order, whose gradients are all there.
  void ready(size_t index) {
    if (!armed) return;
    --buckets[bucket_of[index]].pending;
    while (next < buckets.size() && buckets[next].pending == 0) start(buckets[next++]);
  }
};

namespace {

// Runs after a gradient accumulator has added this backward's gradient.
struct AfterAccumulation : torch::autograd::FunctionPostHook {
  explicit AfterAccumulation(std::function<void()> then) : then(std::move(then)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    then();
    return outputs;
  }
  std::function<void()> then;
};

}  // namespace

GradientSync::GradientSync(ProcessGroup& group, const std::vector<torch::Tensor>& parameters, int64_t bucket_bytes)
    : state_(std::make_shared<State>()) {
  state_->group = &group;
  state_->bucket_of.resize(parameters.size());
  int64_t bytes = 0;  // in the last bucket
  for (size_t i = parameters.size(); i-- > 0;) {
    const auto& p = parameters[i];
    const int64_t size = p.numel() * static_cast<int64_t>(p.element_size());
    const bool fits = !state_->buckets.empty() && bytes + size <= bucket_bytes &&
                      p.scalar_type() == state_->buckets.back().parameters.front().scalar_type();
    if (!fits) {
      state_->buckets.emplace_back();
      bytes = 0;
    }
    state_->buckets.back().parameters.push_back(p);
    state_->bucket_of[i] = state_->buckets.size() - 1;
    bytes += size;
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(parameters[i]);
    // The hook holds the state weakly: the state holds the accumulator.
    accumulator->add_post_hook(std::make_unique<AfterAccumulation>([state = std::weak_ptr<State>(state_), i] {
      if (const auto alive = state.lock()) alive->ready(i);
    }));
    state_->accumulators.push_back(std::move(accumulator));
  }
}

// The state dies with it, and with the state its hooks (they hold it weakly).
GradientSync::~GradientSync() = default;

void GradientSync::arm() {
  for (auto& bucket : state_->buckets) {
    bucket.pending = static_cast<int64_t>(bucket.parameters.size());
    bucket.reduce.reset();
  }
  state_->next = 0;
  state_->armed = true;
}

int64_t GradientSync::buckets() const { return static_cast<int64_t>(state_->buckets.size()); }

int64_t GradientSync::buckets_started_in_backward() const { return static_cast<int64_t>(state_->started_in_backward); }

void GradientSync::finish() {
  auto& state = *state_;
  state.armed = false;
  state.started_in_backward = state.next;
  // A parameter backward did not reach still takes part, with a zero gradient.
  while (state.next < state.buckets.size()) state.start(state.buckets[state.next++]);
  torch::NoGradGuard no_grad;
  for (auto& bucket : state.buckets) {
    state.group->wait(*bucket.reduce);
    int64_t offset = 0;
    for (auto& p : bucket.parameters) {
      auto mean = bucket.flat.slice(0, offset, offset + p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(mean);
      } else {
        p.mutable_grad() = mean.clone();
      }
      offset += p.numel();
    }
    bucket.reduce.reset();
  }
}

}  // namespace llm
