#include "llm/train/task.h"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <utility>

#include "llm/train/classify_task.h"
#include "llm/train/dpo_task.h"
#include "llm/train/instruct_task.h"
#include "llm/train/pretrain_task.h"
#include "llm/train/trainer.h"
#include "llm/util/error.h"
#include "llm/nn/linear.h"

namespace llm {
namespace {

using TaskFactory = std::function<std::unique_ptr<Task>()>;
using TaskEntry = std::pair<std::string_view, TaskFactory>;

template <typename T>
TaskEntry task_entry() {
  return {T::kName, [] { return std::make_unique<T>(); }};
}

// Every task, by the name a run config gives it. A new task is its own file and one
// line here.
const std::vector<TaskEntry>& registry() {
  static const std::vector<TaskEntry> kTasks = {
      task_entry<PretrainTask>(),
      task_entry<ClassifyTask>(),
      task_entry<InstructTask>(),
      task_entry<DpoTask>(),
  };
  return kTasks;
}

}  // namespace

const std::vector<std::string_view>& task_names() {
  static const auto kNames = [] {
    std::vector<std::string_view> names;
    for (const auto& [name, make] : registry()) names.push_back(name);
    return names;
  }();
  return kNames;
}

std::string task_choices() {
  std::string choices;
  const auto& names = task_names();
  for (size_t i = 0; i < names.size(); ++i) {
    choices += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  }
  return choices;
}

std::unique_ptr<Task> make_task(std::string_view name) {
  for (const auto& [known, make] : registry()) {
    if (known == name) return make();
  }
  throw Error(fmt::format("task must be {}, got \"{}\"", task_choices(), name));
}

LanguageModel base_model(const ModelConfig& model_config, const NamedTensors& weights, const std::string& source,
                  const LessonSeeds& seeds) {
  seeds.before_model();
  auto model = model_config.make();
  if (!weights.empty()) model->load_weights(weights, source);
  return model;
}

void sample_after_epoch(Trainer& trainer, const TrainHooks& hooks) {
  if (hooks.on_sample) hooks.on_sample(trainer.progress().epoch + 1, trainer.sample());
}

void freeze_and_add_lora(LanguageModelImpl& model, const TrainConfig& config) {
  for (auto& parameter : model.parameters()) parameter.set_requires_grad(false);
  add_lora(model, config.lora_rank, config.lora_alpha);
}

bool Task::reads(std::string_view setting) const {
  // The settings that some task lists as its own, gathered once; a setting no task
  // lists is every task's.
  static const std::set<std::string_view> task_specific = [] {
    std::set<std::string_view> all;
    for (const auto& name : task_names()) {
      for (const auto own : make_task(name)->own_settings()) all.insert(own);
    }
    return all;
  }();
  const auto own = own_settings();
  return std::find(own.begin(), own.end(), setting) != own.end() || task_specific.count(setting) == 0;
}

void FinetuneTask::check_config(const TrainConfig& config, std::string_view source) const {
  if (config.random_windows()) {
    throw Error(fmt::format("{}: sampling must be \"sliding\" unless pretraining, got \"{}\"", source,
                            config.sampling));
  }
  if (!config.val_data.empty()) {
    throw Error(fmt::format("{}: val_data must be empty unless pretraining (chapters 6 and 7 have their own "
                            "splits), got \"{}\"",
                            source, config.val_data));
  }
}

// Frozen as in training; the checkpoint's weights come next.
void FinetuneTask::shape_model(LanguageModelImpl& model, const TrainConfig& config) const {
  if (config.uses_lora()) freeze_and_add_lora(model, config);
}

}  // namespace llm
