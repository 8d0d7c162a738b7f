#include "llm/train/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>

#include "llm/io/state_dict.h"
#include "llm/train/adamw.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"
#include "llm/util/show.h"

namespace llm {
namespace {

std::string json_entry(const NamedTensors& checkpoint, const std::string& name, const std::string& source) {
  return tensor_to_string(find_tensor(checkpoint, name, fmt::format("checkpoint '{}'", source)));
}

// AdamW's per-parameter state under the parameters' state-dict names:
// "<name>/step", "<name>/exp_avg", "<name>/exp_avg_sq" (none before the first step).
NamedTensors optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module) {
  NamedTensors out;
  auto& states = optimizer.state();
  for (const auto& item : module.named_parameters()) {
    const auto& name = item.key();
    const auto& parameter = item.value();
    const auto it = states.find(AdamW::state_key(parameter));
    if (it == states.end()) continue;
    const auto& state = static_cast<const torch::optim::AdamWParamState&>(*it->second);
    out.emplace_back(name + "/step", torch::tensor(state.step()));
    out.emplace_back(name + "/exp_avg", state.exp_avg());
    out.emplace_back(name + "/exp_avg_sq", state.exp_avg_sq());
  }
  return out;
}

// Puts that state back; a missing or mis-shaped entry is an llm::Error naming `what`.
void load_optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module, const NamedTensors& state,
                          const std::string& what) {
  auto& states = optimizer.state();
  states.clear();
  if (state.empty()) return;  // saved before the first step
  for (const auto& item : module.named_parameters()) {
    const auto& name = item.key();
    const auto& parameter = item.value();
    if (!parameter.requires_grad()) continue;  // frozen (a classifier's): it never steps
    const auto& steps = find_tensor(state, name + "/step", what);
    const auto& exp_avg = find_tensor(state, name + "/exp_avg", what);
    const auto& exp_avg_sq = find_tensor(state, name + "/exp_avg_sq", what);
    if (steps.numel() != 1 || exp_avg.sizes() != parameter.sizes() || exp_avg_sq.sizes() != parameter.sizes()) {
      throw Error(fmt::format("{} of '{}' does not fit the parameter of shape {}", what, name, shape(parameter)));
    }
    if (steps.item<double>() < 0) {
      throw Error(fmt::format("{} of '{}': step is {}; expected 0 or more", what, name, steps.item<double>()));
    }
    auto entry = std::make_unique<torch::optim::AdamWParamState>();
    entry->step(steps.item<int64_t>());
    entry->exp_avg(exp_avg.to(parameter.options()).clone());
    entry->exp_avg_sq(exp_avg_sq.to(parameter.options()).clone());
    states[AdamW::state_key(parameter)] = std::move(entry);
  }
}

// The global CPU generator's state, and setting it back (torch.get/set_rng_state).
torch::Tensor rng_state() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_rng_state(const torch::Tensor& state, const std::string& source) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  try {
    generator.set_state(state.contiguous().to(torch::kUInt8));
  } catch (const c10::Error& e) {
    throw Error(fmt::format("checkpoint '{}': rng/cpu is not a generator state ({})", source,
                            e.what_without_backtrace()));
  }
}

// The evaluation history as the checkpoint's columns: history/step, history/epoch, ...
template <typename Record, typename Field>
torch::Tensor column(const std::vector<Record>& history, Field field) {
  using Value = std::decay_t<decltype(field(std::declval<const Record&>()))>;
  std::vector<Value> values;
  for (const auto& record : history) values.push_back(field(record));
  return torch::tensor(values, std::is_same_v<Value, double> ? torch::kDouble : torch::kLong);
}

NamedTensors accuracy_columns(const std::vector<AccuracyRecord>& accuracies) {
  return {{"accuracy/epoch", column(accuracies, [](const AccuracyRecord& r) { return r.epoch; })},
          {"accuracy/examples_seen", column(accuracies, [](const AccuracyRecord& r) { return r.examples_seen; })},
          {"accuracy/train", column(accuracies, [](const AccuracyRecord& r) { return r.train_accuracy; })},
          {"accuracy/val", column(accuracies, [](const AccuracyRecord& r) { return r.val_accuracy; })}};
}

constexpr std::string_view kFigures = "history/figure/";

// A task's own figures (EvalRecord::figures) are columns history/figure/<name>.
NamedTensors history_columns(const std::vector<EvalRecord>& history) {
  NamedTensors columns = {
      {"history/step", column(history, [](const EvalRecord& r) { return r.step; })},
      {"history/epoch", column(history, [](const EvalRecord& r) { return r.epoch; })},
      {"history/epochs_seen", column(history, [](const EvalRecord& r) { return r.epochs_seen; })},
      {"history/tokens_seen", column(history, [](const EvalRecord& r) { return r.tokens_seen; })},
      {"history/train_loss", column(history, [](const EvalRecord& r) { return r.train_loss; })},
      {"history/val_loss", column(history, [](const EvalRecord& r) { return r.val_loss; })},
      {"history/lr", column(history, [](const EvalRecord& r) { return r.lr; })}};
  const size_t figures = history.empty() ? 0 : history.front().figures.size();
  for (size_t k = 0; k < figures; ++k) {
    columns.emplace_back(std::string(kFigures) + history.front().figures[k].first,
                         column(history, [k](const EvalRecord& r) { return r.figures.at(k).second; }));
  }
  return columns;
}

// A checkpoint's columns `group`/<name> as doubles (int64 counts are exact in a double
// up to 2^53), each as long as `group`/`first`.
class Columns {
 public:
  Columns(const NamedTensors& checkpoint, const std::string& source, std::string group, const std::string& first)
      : checkpoint_(checkpoint), what_(fmt::format("checkpoint '{}'", source)), group_(std::move(group)) {
    records_ = find_tensor(checkpoint_, group_ + "/" + first, what_).numel();
  }
  int64_t records() const { return records_; }
  std::vector<double> operator()(const std::string& name) const {
    const auto& tensor = find_tensor(checkpoint_, group_ + "/" + name, what_);
    if (tensor.numel() != records_) {
      throw Error(fmt::format("{}: {}/{} has {} values; expected {}", what_, group_, name, tensor.numel(), records_));
    }
    const auto as_double = tensor.to(torch::kDouble).contiguous();
    return std::vector<double>(as_double.data_ptr<double>(), as_double.data_ptr<double>() + records_);
  }

 private:
  const NamedTensors& checkpoint_;
  std::string what_, group_;
  int64_t records_ = 0;
};

std::vector<EvalRecord> read_history(const NamedTensors& checkpoint, const std::string& source) {
  const Columns values(checkpoint, source, "history", "step");
  const int64_t records = values.records();
  const auto step = values("step"), epoch = values("epoch"), epochs_seen = values("epochs_seen"),
             tokens_seen = values("tokens_seen"), train_loss = values("train_loss"), val_loss = values("val_loss"),
             lr = values("lr");
  std::vector<EvalRecord> history(records);
  for (int64_t i = 0; i < records; ++i) {
    history[i] = {static_cast<int64_t>(step[i]), static_cast<int64_t>(epoch[i]), epochs_seen[i],
                  static_cast<int64_t>(tokens_seen[i]), train_loss[i], val_loss[i], lr[i], {}};
  }
  for (const auto& [name, tensor] : checkpoint) {
    if (name.rfind(kFigures, 0) != 0) continue;
    const auto figure = name.substr(kFigures.size());
    const auto figures = values("figure/" + figure);
    for (int64_t i = 0; i < records; ++i) history[i].figures.emplace_back(figure, figures[i]);
  }
  return history;
}

// Absent in a pretraining checkpoint.
std::vector<AccuracyRecord> read_accuracies(const NamedTensors& checkpoint, const std::string& source) {
  if (std::none_of(checkpoint.begin(), checkpoint.end(), [](const auto& e) { return e.first == "accuracy/epoch"; })) {
    return {};
  }
  const Columns values(checkpoint, source, "accuracy", "epoch");
  const auto epoch = values("epoch"), seen = values("examples_seen"), train = values("train"), val = values("val");
  std::vector<AccuracyRecord> accuracies(values.records());
  for (size_t i = 0; i < accuracies.size(); ++i) {
    accuracies[i] = {static_cast<int64_t>(epoch[i]), static_cast<int64_t>(seen[i]), train[i], val[i]};
  }
  return accuracies;
}

int64_t scalar(const NamedTensors& checkpoint, const std::string& name, const std::string& source) {
  const auto& tensor = find_tensor(checkpoint, name, fmt::format("checkpoint '{}'", source));
  if (tensor.numel() != 1) throw Error(fmt::format("checkpoint '{}': {} must be one number", source, name));
  return tensor.item<int64_t>();
}

}  // namespace

NamedTensors checkpoint_archive(const LanguageModelImpl& model, torch::optim::AdamW& optimizer, const TrainConfig& config,
                                const TrainingProgress& progress, const NamedTensors& task_state) {
  NamedTensors out = {{"format", string_to_tensor(kCheckpointFormat)},
                      {"config/model", string_to_tensor(model_config_json(model).dump())},
                      {"config/train", string_to_tensor(to_json(config).dump())}};
  for (const auto& [name, tensor] : state_dict(model)) out.emplace_back("model/" + name, tensor);
  for (const auto& [name, tensor] : optimizer_state(optimizer, model)) out.emplace_back("optimizer/" + name, tensor);
  out.insert(out.end(), {{"progress/step", torch::tensor(progress.step)},
                         {"progress/epoch", torch::tensor(progress.epoch)},
                         {"progress/batch", torch::tensor(progress.batch)},
                         {"progress/tokens_seen", torch::tensor(progress.tokens_seen)},
                         {"progress/order",
                          progress.order.defined() ? progress.order : torch::empty({0}, torch::kLong)}});
  for (auto& entry : history_columns(progress.history)) out.push_back(std::move(entry));
  if (!progress.accuracies.empty()) {
    for (auto& entry : accuracy_columns(progress.accuracies)) out.push_back(std::move(entry));
  }
  for (const auto& [name, tensor] : task_state) out.emplace_back("task/" + name, tensor);
  out.emplace_back("rng/cpu", rng_state());
  return out;
}

void save_checkpoint(const std::filesystem::path& path, const LanguageModelImpl& model, torch::optim::AdamW& optimizer,
                     const TrainConfig& config, const TrainingProgress& progress, const NamedTensors& task_state) {
  save_tensors(path, checkpoint_archive(model, optimizer, config, progress, task_state));
}

TrainingProgress restore_checkpoint(const NamedTensors& checkpoint, const std::string& source, LanguageModelImpl& model,
                                    torch::optim::AdamW& optimizer) {
  load_state_dict(model, checkpoint_weights(checkpoint), fmt::format("checkpoint '{}': model", source));
  load_optimizer_state(optimizer, model, with_prefix_removed(checkpoint, "optimizer/"),
                       fmt::format("checkpoint '{}': optimizer state", source));
  TrainingProgress progress;
  progress.step = scalar(checkpoint, "progress/step", source);
  progress.epoch = scalar(checkpoint, "progress/epoch", source);
  progress.batch = scalar(checkpoint, "progress/batch", source);
  progress.tokens_seen = scalar(checkpoint, "progress/tokens_seen", source);
  for (const auto& [name, value] : {std::pair<const char*, int64_t>{"step", progress.step},
                                    {"epoch", progress.epoch},
                                    {"batch", progress.batch},
                                    {"tokens_seen", progress.tokens_seen}}) {
    if (value < 0) throw Error(fmt::format("checkpoint '{}': progress/{} is {}; expected 0 or more", source, name, value));
  }
  // Every finished epoch took at least one optimizer step.
  if (progress.epoch > progress.step) {
    throw Error(fmt::format("checkpoint '{}': progress/epoch is {} after only {} steps; expected at most one epoch "
                            "per step",
                            source, progress.epoch, progress.step));
  }
  const auto& order = find_tensor(checkpoint, "progress/order", fmt::format("checkpoint '{}'", source));
  if (order.numel() > 0) progress.order = order.clone();
  progress.history = read_history(checkpoint, source);
  progress.accuracies = read_accuracies(checkpoint, source);
  set_rng_state(find_tensor(checkpoint, "rng/cpu", fmt::format("checkpoint '{}'", source)), source);
  return progress;
}

int64_t checkpoint_counter(const NamedTensors& checkpoint, const std::string& name, const std::string& source) {
  return scalar(checkpoint, "progress/" + name, source);
}

void check_checkpoint_format(const NamedTensors& tensors, const std::string& source) {
  const auto format = std::find_if(tensors.begin(), tensors.end(), [](const auto& e) { return e.first == "format"; });
  if (format == tensors.end()) {
    throw Error(fmt::format("'{}' is not a training checkpoint (it has no 'format' entry; a state dict goes to "
                            "--load-state-dict)",
                            source));
  }
  if (const auto found = tensor_to_string(format->second); found != kCheckpointFormat) {
    throw Error(fmt::format("'{}': unknown checkpoint format '{}', expected '{}'", source, found, kCheckpointFormat));
  }
}

NamedTensors load_checkpoint(const std::filesystem::path& path) {
  auto tensors = load_tensors(path);
  check_checkpoint_format(tensors, path.string());
  return tensors;
}

ModelConfig checkpoint_model_config(const NamedTensors& checkpoint, const std::string& source) {
  return ModelConfig::parse(json_entry(checkpoint, "config/model", source), source + ": config/model");
}

TrainConfig checkpoint_train_config(const NamedTensors& checkpoint, const std::string& source) {
  const auto what = source + ": config/train";
  auto settings = parse_json_object(json_entry(checkpoint, "config/train", source), "training config", what);
  // A checkpoint keeps the settings under the names they had when it was written.
  if (settings.contains("sample_tokens") && !settings.contains("max_new_tokens")) {
    settings["max_new_tokens"] = std::move(settings["sample_tokens"]);
    settings.erase("sample_tokens");
  }
  return train_config_from_json(settings, what);
}

NamedTensors checkpoint_weights(const NamedTensors& checkpoint) { return with_prefix_removed(checkpoint, "model/"); }

void load_torch_optimizer_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module,
                                const NamedTensors& state_dict, const std::string& source) {
  const auto what = fmt::format("'{}': optimizer_state_dict", source);
  const auto parameters = module.named_parameters();
  const auto listed = with_prefix_removed(state_dict, "param_groups/0/params/");
  if (!listed.empty() && static_cast<int64_t>(listed.size()) != static_cast<int64_t>(parameters.size())) {
    throw Error(fmt::format("{} is for a model of {} parameter tensors; this one has {}", what, listed.size(),
                            parameters.size()));
  }
  // PyTorch numbers the parameters in model.parameters() order, which is the order of
  // named_parameters() here: the same modules, registered in the same order.
  NamedTensors state;
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const char* field : {"step", "exp_avg", "exp_avg_sq"}) {
      const auto name = fmt::format("state/{}/{}", i, field);
      const auto it = std::find_if(state_dict.begin(), state_dict.end(), [&](const auto& e) { return e.first == name; });
      if (it != state_dict.end()) state.emplace_back(parameters[i].key() + "/" + field, it->second);
    }
  }
  load_optimizer_state(optimizer, module, state, what);
}

}  // namespace llm
