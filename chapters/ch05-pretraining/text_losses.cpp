#include "text_losses.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "llm/text/data_loader.h"
#include "llm/train/loss.h"
#include "llm/train/pretrain_task.h"
#include "llm/util/files.h"
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
  torch::manual_seed(123);  // as the lesson, for the shuffled order of the training batches
  const double train_loss = llm::calc_loss_loader(model, train_loader);
  const double val_loss = llm::calc_loss_loader(model, val_loader);
  fmt::print("Training loss: {}\nValidation loss: {}\n", train_loss, val_loss);
  return {train_loss, val_loss};
}

}  // namespace lesson
