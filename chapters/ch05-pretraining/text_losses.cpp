#include "text_losses.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "llm/text/data_loader.h"
#include "llm/train/loss.h"
#include "llm/train/pretrain_task.h"
#include "llm/util/files.h"
#include "llm/util/progress.h"
#include "llm/util/show.h"
#include "llm/util/utf8.h"

namespace lesson {

std::pair<double, double> print_text_losses(const llm::TrainConfig& run, llm::LanguageModelImpl& model,
                                            const llm::BpeTokenizer& tokenizer, int64_t max_length,
                                            torch::Device device) {
  const auto text_data = llm::read_text_file(llm::data_path(run));
  const int64_t total_characters = llm::utf8_length(text_data);
  fmt::print("{}\n", text_data.substr(0, llm::utf8_offset(text_data, 99)));  // the first 99 characters
  fmt::print("{}\n", text_data.substr(llm::utf8_offset(text_data, std::max<int64_t>(0, total_characters - 99))));
  fmt::print("Characters: {}\nTokens: {}\n", total_characters, tokenizer.encode(text_data).size());
  const auto split = llm::split_train_val(text_data, tokenizer, run, max_length, run.data).split;
  const llm::DataLoader train_loader(split.train, llm::DataLoaderOptions(run.batch_size));
  const llm::DataLoader val_loader(split.val, llm::DataLoaderOptions(run.batch_size).shuffle(false).drop_last(false));
  int64_t train_tokens = 0, val_tokens = 0;
  fmt::print("Train loader:\n");
  for (const auto& batch : train_loader) fmt::print("{} {}\n", llm::torch_size(batch.inputs), llm::torch_size(batch.targets));
  fmt::print("\nValidation loader:\n");
  for (const auto& batch : val_loader) fmt::print("{} {}\n", llm::torch_size(batch.inputs), llm::torch_size(batch.targets));
  for (const auto& batch : train_loader) train_tokens += batch.inputs.numel();
  for (const auto& batch : val_loader) val_tokens += batch.inputs.numel();
  fmt::print("Training tokens: {}\nValidation tokens: {}\nAll tokens: {}\n", train_tokens, val_tokens,
             train_tokens + val_tokens);

  fmt::print("Using {} device.\n", device.str());
  fmt::print("(computing the loss of {} training and {} validation batches, {} model parameters)\n",
             train_loader.size(), val_loader.size(), llm::thousands(llm::parameter_count(model)));
  // A large model takes a while: the batches done, live on a terminal, else a line every few seconds.
  llm::ProgressLine progress(llm::ProgressLine::stderr_is_terminal() ? llm::ProgressMode::kLive : llm::ProgressMode::kLog);
  const auto started = std::chrono::steady_clock::now();
  const int64_t batches = train_loader.size() + val_loader.size();
  int64_t done = 0;
  const llm::BatchLoss counted = [&](llm::LanguageModelImpl& m, const llm::Batch& batch) {
    auto loss = llm::calc_loss_batch(m, batch);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ++done;
    progress.update(llm::format_count_progress(done, batches, seconds, "batches"), done == batches);
    return loss;
  };
  torch::manual_seed(123);  // as the lesson, for the shuffled order of the training batches
  const double train_loss = llm::calc_loss_loader(model, train_loader, std::nullopt, counted);
  const double val_loss = llm::calc_loss_loader(model, val_loader, std::nullopt, counted);
  progress.clear();
  fmt::print("Training loss: {}\nValidation loss: {}\n", train_loss, val_loss);
  return {train_loss, val_loss};
}

}  // namespace lesson
