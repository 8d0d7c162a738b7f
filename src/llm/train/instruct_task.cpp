#include "llm/train/instruct_task.h"

#include <fmt/format.h>

#include "llm/train/loss.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {

void InstructTask::load_data(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer) {
  const auto path = data_path(config);
  style_ = parse_prompt_style(config.prompt_style);
  entries_ = split_instruction_data(read_instruction_data(path));
  InstructionDataset::Options options;
  options.style = style_;
  options.mask_instructions = config.mask_instructions;
  options.allowed_max_length = context_length;  // the lesson's 1024, GPT-2's context
  const auto& [train, test, validation] = entries_;
  require_split_sizes(path, train.size(), test.size(), validation.size(), config.batch_size);
  // A prompt that fills the context leaves no room for its response: in training, the
  // cut would remove all of it; in lesson 7.7, the response would be generated blind.
  for (const auto* split : {&train, &test, &validation}) {
    for (const auto& entry : *split) {
      const auto tokens = static_cast<int64_t>(tokenizer.encode(format_input(entry, options.style)).size());
      if (tokens >= context_length) {
        const auto index = (split == &train ? 0 : split == &test ? train.size() : train.size() + test.size()) +
                           static_cast<size_t>(&entry - split->data());
        throw Error(fmt::format("'{}': entry {}: its prompt has {} tokens, as many as the model's context_length {} "
                                "or more; shorten it, or use a model with a longer context",
                                path.string(), index, tokens, context_length));
      }
    }
  }
  split_.train = std::make_shared<const InstructionDataset>(train, tokenizer, options);
  split_.val = std::make_shared<const InstructionDataset>(validation, tokenizer, options);
}

void require_split_sizes(const std::filesystem::path& path, size_t train, size_t test, size_t validation,
                         int64_t batch_size) {
  if (static_cast<int64_t>(train) >= batch_size && validation > 0) return;
  throw Error(fmt::format("'{}': {} entries make {} training and {} validation entries; expected at least "
                          "batch_size {} and 1",
                          path.string(), train + test + validation, train, validation, batch_size));
}

void InstructTask::adapt_config(TrainConfig& config) const {
  config.start_context = format_input(entries_.validation.front(), style_);
}

// Lesson 7.5: the pretrained GPT as it is; exercise 7.4's LoRA draws next.
LanguageModel InstructTask::make_model(const ModelConfig& model_config, const TrainConfig& config,
                                  const NamedTensors& weights, const std::string& source,
                                  const LessonSeeds& seeds) {
  auto model = base_model(model_config, weights, source, seeds);
  if (config.uses_lora()) freeze_and_add_lora(*model, config);
  return model;
}

torch::Tensor InstructTask::batch_loss(LanguageModelImpl& model, const Batch& batch) const {
  return calc_loss_batch(model, batch);
}

void InstructTask::end_epoch(Trainer& trainer, const TrainHooks& hooks) const { sample_after_epoch(trainer, hooks); }

}  // namespace llm
