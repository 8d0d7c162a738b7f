#include "llm/train/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>
#include <utility>

#include "llm/model/generate.h"
#include "llm/nn/moe_feed_forward.h"
#include "llm/train/adamw.h"
#include "llm/train/loss.h"
#include "llm/train/lr_schedule.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

Trainer::Trainer(TrainConfig config, std::shared_ptr<Task> task, LanguageModel model, const BpeTokenizer& tokenizer,
                 torch::Device device, std::shared_ptr<ProcessGroup> group)
    : config_(std::move(config)), task_(std::move(task)), tokenizer_(tokenizer), model_(std::move(model)),
      group_(std::move(group)), folder_(config_.out_dir) {
  start(device);
}

void Trainer::start(torch::Device device) {
  model_->to(device);
  batch_loss_ = [task = task_.get()](LanguageModelImpl& model, const Batch& batch) { return task->batch_loss(model, batch); };
  const auto& data = task_->split();
  optimizer_ = std::make_unique<AdamW>(
      model_->parameters(), torch::optim::AdamWOptions(config_.lr).weight_decay(config_.weight_decay));
  auto train_options = DataLoaderOptions(config_.batch_size).shuffle(true).drop_last(true);
  auto val_options = DataLoaderOptions(config_.batch_size).shuffle(false).drop_last(false);
  if (data.train_samples > 0) {  // random windows, drawn anew for each epoch and each evaluation
    if (group_) throw Error("sampling \"random\" runs in one process; a data-parallel run reads sliding windows");
    train_options.replacement(true).num_samples(data.train_samples);
    val_options.shuffle(true).replacement(true).num_samples(data.val_samples);
  }
  if (group_) {
    const int64_t ranks = group_->world_size(), rank = group_->rank();
    train_options.sampler(std::make_shared<DistributedSampler>(data.train->size(), ranks, rank, true, config_.seed));
    val_options.sampler(std::make_shared<DistributedSampler>(data.val->size(), ranks, rank, false, config_.seed));
    std::vector<torch::Tensor> trained;  // a classifier's frozen parameters get no gradient
    for (const auto& parameter : model_->parameters()) {
      if (parameter.requires_grad()) trained.push_back(parameter);
    }
    // A mixture of experts leaves the experts no token was routed to without a
    // gradient in a step: the Reducer must look for them (DDP's find_unused_parameters).
    const auto modules = model_->modules();
    const bool routed = std::any_of(modules.begin(), modules.end(), [](const auto& m) {
      return std::dynamic_pointer_cast<MoEFeedForwardImpl>(m) != nullptr;
    });
    gradient_sync_ = std::make_unique<GradientSync>(*group_, trained, /*find_unused_parameters=*/routed);
  }
  train_loader_ = std::make_unique<DataLoader>(data.train, train_options);
  val_loader_ = std::make_unique<DataLoader>(data.val, val_options);
}

void Trainer::resume(const NamedTensors& checkpoint, const std::string& source) {
  auto progress = restore_checkpoint(checkpoint, source, *model_, *optimizer_);
  if (progress.order.defined()) {
    if (progress.order.numel() != train_loader_->examples()) {
      throw Error(fmt::format("checkpoint '{}' was made on other training data or another number of ranks: its "
                              "epoch covers {} examples, the data now make {}",
                              source, progress.order.numel(), train_loader_->examples()));
    }
    // A data-parallel checkpoint holds rank 0's share; every rank draws its own again.
    if (group_) progress.order = train_loader_->options().sampler()->indices(progress.epoch);
    train_loader_->resume(progress.order, progress.batch);  // checks the position
  }
  progress_ = std::move(progress);
}

void Trainer::load_optimizer_state(const NamedTensors& file, const std::string& source) {
  load_torch_optimizer_state(*optimizer_, *model_, with_prefix_removed(file, "optimizer_state_dict/"), source);
}

// Lesson 5.2's train_model_simple, and where each of its lines is here:
//
//   for epoch in range(num_epochs):                     the while loop below
//       model.train()
//       for input_batch, target_batch in train_loader:  for each batch (start_epoch)
//           optimizer.zero_grad()                        train_step
//           loss = calc_loss_batch(...)                  train_step
//           loss.backward()                              train_step
//           optimizer.step()                             train_step
//           tokens_seen += input_batch.numel()           train_step
//           global_step += 1                             train_step
//           if global_step % eval_freq == 0:             evaluate
//       generate_and_print_sample(...)                   sample, through hooks.on_sample
//
// Beyond the lesson: a learning-rate schedule, gradient clipping and accumulation,
// data-parallel ranks, checkpoints, max_steps and stop requests. The loss runs the
// output layer and cross-entropy as one fused function (linear_cross_entropy) and
// AdamW steps in one pass: the same numbers as the lesson's ops, faster.
TrainEnd Trainer::train(const TrainHooks& hooks) {
  std::optional<MetricsLog> metrics;
  if (writes_files()) {
    folder_.open();
    metrics.emplace(metrics_path(), progress_.history);
  }
  const auto finish = [&](TrainEnd end) {
    if (writes_files()) save_checkpoint();
    return end;
  };
  if (group_) broadcast_module(*group_, *model_);  // every rank starts from rank 0's weights
  const TrainingProgress at_start = progress_;
  const auto started = Clock::now();
  times_ = {};
  model_->train();
  while (progress_.epoch < config_.num_epochs) {
    for (auto batch = start_epoch(); batch != train_loader_->end();) {
      if (max_steps_reached()) return finish(TrainEnd::kMaxSteps);
      const auto [step_loss, stop] =
          agree_across_ranks(group_.get(), train_step(batch), hooks.should_stop && hooks.should_stop());
      if (hooks.on_step) hooks.on_step(step_record(step_loss, seconds_since(started), at_start));
      if ((progress_.step - 1) % config_.eval_freq == 0) {
        const auto record = evaluate();
        progress_.history.push_back(record);
        if (metrics) metrics->append(record);
        if (hooks.on_eval) hooks.on_eval(record);
      }
      if (config_.checkpoint_every > 0 && progress_.step % config_.checkpoint_every == 0 && writes_files()) {
        save_checkpoint();
      }
      if (stop) return finish(TrainEnd::kStopped);
      if (max_steps_reached()) return finish(TrainEnd::kMaxSteps);
    }
    task_->end_epoch(*this, hooks);  // the lesson's sample, or its accuracies
    progress_.next_epoch();
  }
  return finish(TrainEnd::kFinished);
}

// The epoch's first batch, or, in a resumed run, the batch where it stopped. Starting
// an epoch draws its shuffled order, as PyTorch's DataLoader does at iter().
DataLoader::Iterator Trainer::start_epoch() {
  const auto loading = Clock::now();
  train_loader_->set_epoch(progress_.epoch);
  auto batch = progress_.order.defined() ? train_loader_->resume(progress_.order, progress_.batch)
                                         : train_loader_->begin();
  progress_.order = batch.order();
  const double loaded = seconds_since(loading);
  times_.data_seconds += loaded;
  times_.steps_seconds += loaded;
  return batch;
}

// One optimizer step on the next grad_accum batches (fewer at the epoch's end): zero
// the gradients, compute the loss, backpropagate, all-reduce across ranks, clip and
// step AdamW. Returns this rank's mean loss over those batches.
double Trainer::train_step(DataLoader::Iterator& batch) {
  const auto step_start = Clock::now();
  const double lr = learning_rate(config_, progress_.step, steps_of_all_epochs());
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  model_->zero_grad(/*set_to_none=*/true);
  double loss_sum = 0.0;
  int64_t batches = 0;
  while (batches < config_.grad_accum && batch != train_loader_->end()) {
    const auto loss = batch_loss_(*model_, *batch);
    const double value = loss.item<double>();
    if (!std::isfinite(value)) {
      std::error_code none;
      const auto kept = config_.out_dir.empty() ? std::string("No checkpoint is written without out_dir")
                        : !std::filesystem::exists(checkpoint_path(), none)
                            ? std::string("No checkpoint was written yet")
                            : fmt::format("The last checkpoint, '{}', is kept as it was", checkpoint_path().string());
      throw Error(fmt::format("step {} (epoch {}): the training loss is {}; stopping. {}. A lower lr, warmup or "
                              "grad_clip may help",
                              progress_.step, progress_.epoch + 1,
                              std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf", kept));
    }
    // The step's last backward all-reduces the gradients as they become ready.
    const bool last = batches + 1 == config_.grad_accum || batch.index() + 1 == train_loader_->size();
    const auto scaled = config_.grad_accum > 1 ? loss / static_cast<double>(config_.grad_accum) : loss;
    if (gradient_sync_ && last) {
      gradient_sync_->backward(scaled);
    } else {
      scaled.backward();
    }
    loss_sum += value;
    // Tokens, or examples to classify (the lesson's examples_seen), on every rank.
    progress_.tokens_seen += task_->seen(*batch) * (group_ ? group_->world_size() : 1);
    ++batches;
    const auto loading = Clock::now();
    ++batch;
    times_.data_seconds += seconds_since(loading);
    ++progress_.batch;
  }
  const bool clip = config_.grad_clip > 0.0 && (config_.clip_during_warmup || progress_.step >= config_.warmup_steps);
  if (clip) torch::nn::utils::clip_grad_norm_(model_->parameters(), config_.grad_clip);  // appendix D: after warmup
  optimizer_->step();
  ++progress_.step;
  times_.steps_seconds += seconds_since(step_start);
  return loss_sum / static_cast<double>(batches);
}

StepRecord Trainer::step_record(double step_loss, double seconds, const TrainingProgress& at_start) const {
  StepRecord record;
  record.step = progress_.step;
  record.total_steps = total_steps();
  record.epoch = progress_.epoch + 1;
  record.loss = step_loss;
  record.lr = current_lr();
  record.tokens_seen = progress_.tokens_seen;
  record.tokens_per_second = static_cast<double>(progress_.tokens_seen - at_start.tokens_seen) / seconds;
  record.seconds_left = static_cast<double>(record.total_steps - progress_.step) * seconds /
                        static_cast<double>(progress_.step - at_start.step);
  return record;
}

// The lesson's evaluate_model: the mean loss of eval_iter batches of each split, in
// eval mode.
EvalRecord Trainer::evaluate() {
  EvalRecord record;
  model_->eval();
  const auto figures = [task = task_.get()](LanguageModelImpl& model, const Batch& batch) {
    return task->batch_figures(model, batch);
  };
  auto values = calc_figures_loader(*model_, *train_loader_, config_.eval_iter, figures);  // [loss, figure...]
  const auto val = calc_figures_loader(*model_, *val_loader_, config_.eval_iter, figures);
  model_->train();
  const size_t per_split = values.size();
  values.insert(values.end(), val.begin(), val.end());
  values = mean_over_ranks(group_.get(), std::move(values));
  record.train_loss = values[0];
  record.val_loss = values[per_split];
  const auto names = task_->figure_names();
  for (const auto& [split, at] : {std::pair<const char*, size_t>{"train", 0}, {"val", per_split}}) {
    for (size_t k = 0; k < names.size(); ++k) record.figures.emplace_back(fmt::format("{}_{}", split, names[k]), values[at + 1 + k]);
  }
  record.step = progress_.step - 1;
  record.epoch = progress_.epoch + 1;
  record.epochs_seen =
      static_cast<double>(progress_.epoch) + static_cast<double>(progress_.batch) / train_loader_->size();
  record.tokens_seen = progress_.tokens_seen;
  record.lr = current_lr();
  return record;
}

double Trainer::current_lr() const {
  return static_cast<const torch::optim::AdamWOptions&>(optimizer_->param_groups().front().options()).lr();
}

std::string Trainer::sample() {
  const bool was_training = model_->is_training();
  model_->eval();
  const int64_t context = model_->shape().context_length;
  auto ids = text_to_token_ids(tokenizer_, config_.start_context);  // [1, n]
  ids = ids.slice(1, std::max<int64_t>(0, ids.size(1) - context));
  const auto out = generate_text_simple(*model_, ids, config_.max_new_tokens, context);
  model_->train(was_training);
  return token_ids_to_text(tokenizer_, out);
}

int64_t Trainer::steps_per_epoch() const {
  return (train_loader_->size() + config_.grad_accum - 1) / config_.grad_accum;
}

int64_t Trainer::steps_of_all_epochs() const { return steps_per_epoch() * config_.num_epochs; }

int64_t Trainer::total_steps() const {
  const int64_t all = steps_of_all_epochs();
  return config_.max_steps > 0 ? std::min(all, config_.max_steps) : all;
}

NamedTensors Trainer::checkpoint() const {
  return checkpoint_archive(*model_, *optimizer_, config_, progress_, task_->state());
}

void Trainer::save_checkpoint() const {
  llm::save_checkpoint(checkpoint_path(), *model_, *optimizer_, config_, progress_, task_->state());
}

}  // namespace llm
