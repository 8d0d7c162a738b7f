#include "llm/train/trainer.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <variant>

#include "llm/io/state_dict.h"
#include "llm/model/generate.h"
#include "llm/train/adamw.h"
#include "llm/train/checkpoint.h"
#include "llm/train/loss.h"
#include "llm/train/lr_schedule.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

// Byte offset of code point `index` in UTF-8 `text` (its size when past the end).
size_t code_point_offset(const std::string& text, int64_t index) {
  int64_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts_code_point = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_code_point && seen++ == index) return i;
  }
  return text.size();
}

int64_t code_points(const std::string& text) {
  int64_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::shared_ptr<const SlidingWindowDataset> windows(const std::vector<int64_t>& ids, int64_t context_length,
                                                    int64_t stride, const std::string& what) {
  if (static_cast<int64_t>(ids.size()) <= context_length) {
    throw Error(fmt::format("{} has {} tokens, but one window needs context_length + 1 = {}; use more text, "
                            "another train_ratio or a smaller context_length",
                            what, ids.size(), context_length + 1));
  }
  return std::make_shared<const SlidingWindowDataset>(torch::tensor(ids, torch::kLong), context_length, stride);
}

int64_t scalar(const NamedTensors& checkpoint, const std::string& name, const std::string& source) {
  const auto& tensor = find_tensor(checkpoint, name, fmt::format("checkpoint '{}'", source));
  if (tensor.numel() != 1) throw Error(fmt::format("checkpoint '{}': {} must be one number", source, name));
  return tensor.item<int64_t>();
}

torch::Tensor column(const std::vector<EvalRecord>& history, double EvalRecord::*member) {
  std::vector<double> values;
  for (const auto& record : history) values.push_back(record.*member);
  return torch::tensor(values, torch::kDouble);
}

torch::Tensor column(const std::vector<EvalRecord>& history, int64_t EvalRecord::*member) {
  std::vector<int64_t> values;
  for (const auto& record : history) values.push_back(record.*member);
  return torch::tensor(values, torch::kLong);
}

// The history's columns, in the checkpoint's "history/<field>" entries.
const std::vector<std::pair<std::string, std::variant<int64_t EvalRecord::*, double EvalRecord::*>>>& history_fields() {
  static const std::vector<std::pair<std::string, std::variant<int64_t EvalRecord::*, double EvalRecord::*>>> kFields =
      {{"step", &EvalRecord::step},           {"epoch", &EvalRecord::epoch},
       {"epochs_seen", &EvalRecord::epochs_seen}, {"tokens_seen", &EvalRecord::tokens_seen},
       {"train_loss", &EvalRecord::train_loss}, {"val_loss", &EvalRecord::val_loss},
       {"lr", &EvalRecord::lr}};
  return kFields;
}

}  // namespace

TrainValData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source) {
  const int64_t characters = code_points(text);
  const auto split = static_cast<int64_t>(config.train_ratio * static_cast<double>(characters));
  const size_t offset = code_point_offset(text, split);
  const auto train_ids = tokenizer.encode(text.substr(0, offset), {"<|endoftext|>"});
  const auto val_ids = tokenizer.encode(text.substr(offset), {"<|endoftext|>"});
  const int64_t stride = config.stride > 0 ? config.stride : context_length;
  TrainValData data;
  data.train = windows(train_ids, context_length, stride,
                       fmt::format("the training part of '{}' (its first {} of {} characters)", source, split, characters));
  data.val = windows(val_ids, context_length, stride,
                     fmt::format("the validation part of '{}' (its last {} of {} characters)", source,
                                 characters - split, characters));
  data.train_tokens = static_cast<int64_t>(train_ids.size());
  data.val_tokens = static_cast<int64_t>(val_ids.size());
  if (data.train->size() < config.batch_size) {
    throw Error(fmt::format("the training part of '{}' makes {} windows of {} tokens, fewer than batch_size {}; use "
                            "more text, a smaller batch_size, stride or context_length",
                            source, data.train->size(), context_length, config.batch_size));
  }
  return data;
}

Trainer::Trainer(TrainConfig config, const GPTConfig& model_config, const BpeTokenizer& tokenizer,
                 torch::Device device, std::shared_ptr<ProcessGroup> group)
    : config_(std::move(config)), tokenizer_(tokenizer), group_(std::move(group)) {
  config_.validate();
  model_config.validate();
  const auto text_path = data_path(config_);
  data_ = split_train_val(read_text_file(text_path), tokenizer_, config_, model_config.context_length,
                          text_path.string());
  // The lesson's order: seed, model, optimizer; data loading draws nothing until an
  // epoch starts.
  torch::manual_seed(static_cast<uint64_t>(config_.seed));
  model_ = GPTModel(model_config);
  model_->to(device);
  optimizer_ = std::make_unique<AdamW>(
      model_->parameters(), torch::optim::AdamWOptions(config_.lr).weight_decay(config_.weight_decay));
  auto train_options = DataLoaderOptions(config_.batch_size).shuffle(true).drop_last(true);
  auto val_options = DataLoaderOptions(config_.batch_size).shuffle(false).drop_last(false);
  if (group_) {
    const int64_t ranks = group_->world_size(), rank = group_->rank();
    train_options.sampler(std::make_shared<DistributedSampler>(data_.train->size(), ranks, rank, true, config_.seed));
    val_options.sampler(std::make_shared<DistributedSampler>(data_.val->size(), ranks, rank, false, config_.seed));
    gradient_sync_ = std::make_unique<GradientSync>(*group_, model_->parameters());
  }
  train_loader_ = std::make_unique<DataLoader>(data_.train, train_options);
  val_loader_ = std::make_unique<DataLoader>(data_.val, val_options);
}

Trainer::Trainer(TrainConfig config, const NamedTensors& checkpoint, const std::string& source,
                 const BpeTokenizer& tokenizer, torch::Device device, std::shared_ptr<ProcessGroup> group)
    : Trainer(std::move(config), checkpoint_model_config(checkpoint, source), tokenizer, device, std::move(group)) {
  load_state_dict(*model_, checkpoint_weights(checkpoint), fmt::format("checkpoint '{}': model", source));
  load_optimizer_state(*optimizer_, *model_, with_prefix_removed(checkpoint, "optimizer/"), source);
  step_ = scalar(checkpoint, "progress/step", source);
  epoch_ = scalar(checkpoint, "progress/epoch", source);
  batch_ = scalar(checkpoint, "progress/batch", source);
  tokens_seen_ = scalar(checkpoint, "progress/tokens_seen", source);
  const auto& order = find_tensor(checkpoint, "progress/order", fmt::format("checkpoint '{}'", source));
  if (order.numel() > 0) {
    if (order.numel() != train_loader_->windows()) {
      throw Error(fmt::format("checkpoint '{}' was made on other training data or another number of ranks: its "
                              "epoch covers {} windows, the data now make {}",
                              source, order.numel(), train_loader_->windows()));
    }
    // A data-parallel checkpoint holds rank 0's share; every rank draws its own again.
    order_ = group_ ? train_loader_->options().sampler()->indices(epoch_) : order.clone();
    train_loader_->resume(order_, batch_);  // checks the position
  }
  const auto history = with_prefix_removed(checkpoint, "history/");
  const int64_t records = find_tensor(history, "step", fmt::format("checkpoint '{}': history", source)).numel();
  history_.resize(records);
  for (const auto& [name, member] : history_fields()) {
    const auto& values = find_tensor(history, name, fmt::format("checkpoint '{}': history", source));
    if (values.numel() != records) {
      throw Error(fmt::format("checkpoint '{}': history/{} has {} values, history/step {}", source, name,
                              values.numel(), records));
    }
    const auto as_double = values.to(torch::kDouble);
    for (int64_t i = 0; i < records; ++i) {
      std::visit([&](auto m) { history_[i].*m = static_cast<std::remove_reference_t<decltype(history_[i].*m)>>(
                                   as_double[i].item<double>()); },
                 member);
    }
  }
  set_rng_state(find_tensor(checkpoint, "rng/cpu", fmt::format("checkpoint '{}'", source)), source);
}

double Trainer::rank_divergence() {
  if (!group_) return 0.0;
  torch::NoGradGuard no_grad;
  const auto parameters = model_->parameters();
  std::vector<torch::Tensor> rank0;
  for (const auto& p : parameters) rank0.push_back(p.detach().clone());
  group_->broadcast(rank0);
  double largest = 0.0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    largest = std::max(largest, (parameters[i] - rank0[i]).abs().max().item<double>());
  }
  auto shared = torch::tensor({largest}, torch::kDouble);
  group_->all_reduce_max(shared);
  return shared.item<double>();
}

int64_t Trainer::steps_per_epoch() const {
  return (train_loader_->size() + config_.grad_accum - 1) / config_.grad_accum;
}

int64_t Trainer::total_steps() const {
  const int64_t all = steps_per_epoch() * config_.num_epochs;
  return config_.max_steps > 0 ? std::min(all, config_.max_steps) : all;
}

std::filesystem::path Trainer::checkpoint_path() const {
  return config_.out_dir.empty() ? std::filesystem::path() : std::filesystem::path(config_.out_dir) / "checkpoint.pt";
}

std::filesystem::path Trainer::metrics_path() const {
  return config_.out_dir.empty() ? std::filesystem::path() : std::filesystem::path(config_.out_dir) / "metrics.jsonl";
}

NamedTensors Trainer::checkpoint() const {
  NamedTensors out = {{"format", string_tensor(kCheckpointFormat)},
                      {"config/model", string_tensor(to_json(model_->config).dump())},
                      {"config/train", string_tensor(to_json(config_).dump())}};
  for (const auto& [name, tensor] : state_dict(*model_)) out.emplace_back("model/" + name, tensor);
  for (const auto& [name, tensor] : optimizer_state(*optimizer_, *model_)) out.emplace_back("optimizer/" + name, tensor);
  out.insert(out.end(), {{"progress/step", torch::tensor(step_)},
                         {"progress/epoch", torch::tensor(epoch_)},
                         {"progress/batch", torch::tensor(batch_)},
                         {"progress/tokens_seen", torch::tensor(tokens_seen_)},
                         {"progress/order", order_.defined() ? order_ : torch::empty({0}, torch::kLong)}});
  for (const auto& [name, member] : history_fields()) {
    out.emplace_back("history/" + name, std::visit([&](auto m) { return column(history_, m); }, member));
  }
  out.emplace_back("rng/cpu", rng_state());
  return out;
}

void Trainer::save_checkpoint(const std::filesystem::path& path) const { save_tensors(path, checkpoint()); }

std::string Trainer::sample() {
  const bool was_training = model_->is_training();
  model_->eval();
  const int64_t context = model_->config.context_length;
  auto ids = text_to_token_ids(tokenizer_, config_.start_context);  // [1, n]
  ids = ids.slice(1, std::max<int64_t>(0, ids.size(1) - context));
  const auto out = generate_text_simple(model_, ids, config_.sample_tokens, context);
  model_->train(was_training);
  return token_ids_to_text(tokenizer_, out);
}

EvalRecord Trainer::evaluate() {
  EvalRecord record;
  model_->eval();
  record.train_loss = calc_loss_loader(model_, *train_loader_, config_.eval_iter);
  record.val_loss = calc_loss_loader(model_, *val_loader_, config_.eval_iter);
  model_->train();
  if (group_) {  // each rank evaluated its share: the mean over the ranks
    auto losses = torch::tensor({record.train_loss, record.val_loss}, torch::kDouble);
    group_->all_reduce_sum(losses);
    losses /= static_cast<double>(group_->world_size());
    record.train_loss = losses[0].item<double>();
    record.val_loss = losses[1].item<double>();
  }
  record.step = step_ - 1;
  record.epoch = epoch_ + 1;
  record.epochs_seen = static_cast<double>(epoch_) + static_cast<double>(batch_) / train_loader_->size();
  record.tokens_seen = tokens_seen_;
  record.lr = static_cast<torch::optim::AdamWOptions&>(optimizer_->param_groups().front().options()).lr();
  return record;
}

TrainEnd Trainer::train(const TrainHooks& hooks) {
  std::optional<MetricsLog> metrics;
  if (writes_files()) {
    std::filesystem::create_directories(config_.out_dir);
    // What a run killed in the middle of writing left behind.
    remove_partial_writes(checkpoint_path());
    remove_partial_writes(metrics_path());
    metrics.emplace(metrics_path(), history_);
  }
  const auto finish = [&](TrainEnd end) {
    if (writes_files()) save_checkpoint(checkpoint_path());
    return end;
  };
  if (group_) broadcast_module(*group_, *model_);  // every rank starts from rank 0's weights
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); };
  const int64_t total = total_steps(), first_step = step_, first_tokens = tokens_seen_;
  const auto started = clock::now();
  times_ = {};
  model_->train();
  for (; epoch_ < config_.num_epochs; ++epoch_, batch_ = 0, order_ = torch::Tensor()) {
    const auto loading = clock::now();
    train_loader_->set_epoch(epoch_);
    auto it = order_.defined() ? train_loader_->resume(order_, batch_) : train_loader_->begin();
    const double loaded = since(loading);
    times_.data_seconds += loaded;
    times_.steps_seconds += loaded;
    order_ = it.order();
    while (it != train_loader_->end()) {
      if (config_.max_steps > 0 && step_ >= config_.max_steps) return finish(TrainEnd::kMaxSteps);
      const auto step_start = clock::now();
      const double lr = learning_rate(config_, step_, steps_per_epoch() * config_.num_epochs);
      for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
      model_->zero_grad(/*set_to_none=*/true);
      double loss_sum = 0.0;
      int64_t batches = 0;
      // A step takes grad_accum batches, or what is left of the epoch.
      const auto next_batch = [&] {
        const auto loading = clock::now();
        ++it;
        times_.data_seconds += since(loading);
      };
      for (; batches < config_.grad_accum && it != train_loader_->end(); ++batches, next_batch(), ++batch_) {
        const auto loss = calc_loss_batch(model_, *it);
        const double value = loss.item<double>();
        if (!std::isfinite(value)) {
          const auto kept = config_.out_dir.empty() ? std::string("No checkpoint is written without out_dir")
                                                    : fmt::format("The last checkpoint, '{}', is kept as it was",
                                                                  checkpoint_path().string());
          throw Error(fmt::format("step {} (epoch {}): the training loss is {}; stopping. {}. A lower lr, warmup or "
                                  "grad_clip may help",
                                  step_, epoch_ + 1, std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf", kept));
        }
        // The step's last backward all-reduces the gradients as they become ready.
        const bool last = batches + 1 == config_.grad_accum || it.index() + 1 == train_loader_->size();
        if (gradient_sync_ && last) gradient_sync_->arm();
        (config_.grad_accum > 1 ? loss / static_cast<double>(config_.grad_accum) : loss).backward();
        loss_sum += value;
        tokens_seen_ += it->inputs.numel() * (group_ ? group_->world_size() : 1);
      }
      if (gradient_sync_) gradient_sync_->finish();
      if (config_.grad_clip > 0.0) torch::nn::utils::clip_grad_norm_(model_->parameters(), config_.grad_clip);
      optimizer_->step();
      ++step_;
      times_.steps_seconds += since(step_start);
      double step_loss = loss_sum / static_cast<double>(batches);
      bool stop = hooks.should_stop && hooks.should_stop();
      if (group_) {  // the loss shown is the mean over the ranks; any rank's stop stops all
        auto shared = torch::tensor({step_loss, stop ? 1.0 : 0.0}, torch::kDouble);
        group_->all_reduce_sum(shared);
        step_loss = shared[0].item<double>() / static_cast<double>(group_->world_size());
        stop = shared[1].item<double>() > 0;
      }

      if (hooks.on_step) {
        const double seconds = since(started);
        StepRecord record;
        record.step = step_;
        record.total_steps = total;
        record.epoch = epoch_ + 1;
        record.loss = step_loss;
        record.lr = lr;
        record.tokens_seen = tokens_seen_;
        record.tokens_per_second = static_cast<double>(tokens_seen_ - first_tokens) / seconds;
        record.seconds_left = static_cast<double>(total - step_) * seconds / static_cast<double>(step_ - first_step);
        hooks.on_step(record);
      }
      if ((step_ - 1) % config_.eval_freq == 0) {
        const auto record = evaluate();
        history_.push_back(record);
        if (metrics) metrics->append(record);
        if (hooks.on_eval) hooks.on_eval(record);
      }
      if (config_.checkpoint_every > 0 && step_ % config_.checkpoint_every == 0 && writes_files()) {
        save_checkpoint(checkpoint_path());
      }
      if (stop) return finish(TrainEnd::kStopped);
      if (config_.max_steps > 0 && step_ >= config_.max_steps) return finish(TrainEnd::kMaxSteps);
    }
    if (hooks.on_sample) hooks.on_sample(epoch_ + 1, sample());
  }
  return finish(TrainEnd::kFinished);
}

}  // namespace llm
