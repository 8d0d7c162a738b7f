#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "llm/text/bpe_tokenizer.h"
#include "llm/text/classification_dataset.h"
#include "llm/text/dataset.h"
#include "llm/text/instruction_data.h"
#include "llm/train/train_config.h"

namespace llm {

/// A run's examples. Pretraining (lesson 5.2): the first train_ratio of the text's
/// characters (Unicode code points, as Python's len counts them) and the rest, each
/// tokenized and cut into windows of context_length tokens, stride apart.
/// Classification (lesson 6.3): the labelled texts of train.csv and validation.csv,
/// and test.csv's for the final accuracy. Instruction finetuning (lesson 7.3): the
/// training and validation entries, batched by custom_collate_fn, and the entries of
/// every split for the responses of lesson 7.7.
struct TrainValData {
  std::shared_ptr<const Dataset> train, val;
  std::shared_ptr<const ClassificationDataset> test;  // classification only
  int64_t train_tokens = 0, val_tokens = 0;           // pretraining: the tokens of each part
  int64_t train_samples = 0, val_samples = 0;         // random windows: drawn per epoch (0: sliding)
  int64_t max_length = 0;                             // classification: the tokens of every padded text
  InstructionSplits instructions;                     // instruction finetuning only
};

/// That split of `text`; `source` names it in errors (too little text for a window
/// or a batch). With random windows (config.sampling), every token starts a window,
/// and an epoch draws as many as the text makes without overlap.
TrainValData split_train_val(const std::string& text, const BpeTokenizer& tokenizer, const TrainConfig& config,
                             int64_t context_length, const std::string& source);

/// The run's data (config.data, see data_path): the text split as above, or a token
/// file (tools/prepare) memory-mapped and split the same way by tokens; with
/// config.val_data, all of it trains and that text or token file validates. For a
/// classification run, the three CSV files of the folder as lesson 6.3's SpamDataset
/// reads them, padded to max_length or the longest training text, which must fit in
/// context_length; or, for an instruction run, the JSON entries split 85 / 10 / 5 in
/// file order, each text cut to context_length tokens, each prompt shorter than it.
TrainValData load_train_val(const TrainConfig& config, int64_t context_length, const BpeTokenizer& tokenizer);

}  // namespace llm
