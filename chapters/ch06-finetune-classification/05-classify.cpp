// Lesson 6.8: using the finetuned classifier. classify_review on texts from the
// command line or a file, with the classifier of a ch06-04-finetune checkpoint or of a
// state dict (the lesson's review_classifier.pth, written by --save-state-dict or by
// PyTorch's torch.save(model.state_dict())).
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/classifier.h"
#include "llm/text/bpe_tokenizer.h"
#include "llm/train/checkpoint.h"
#include "llm/train/classify_task.h"
#include "llm/train/training_run.h"
#include "llm/util/files.h"
#include "llm/util/show.h"
#include "llm/util/utf8.h"

namespace {

struct Classifier {
  llm::LanguageModel model{nullptr};
  int64_t max_length = 0;
  llm::ClassToken token = llm::ClassToken::kLast;
  int64_t num_classes = 2;
};

// A checkpoint knows its head, its text length and its token; a state dict needs
// --config, --num-classes and --max-length.
Classifier load_classifier(const cxxopts::ParseResult& args) {
  Classifier c;
  if (args.count("checkpoint") != 0) {
    if (args.count("load-state-dict") != 0 || args.count("config") != 0) {
      throw llm::cli::BadFlagValue("--checkpoint holds its own config and weights; leave out --config and "
                                   "--load-state-dict");
    }
    const auto path = args["checkpoint"].as<std::string>();
    const auto checkpoint = llm::load_checkpoint(path);
    const auto run = llm::checkpoint_train_config(checkpoint, path);
    if (run.task != llm::ClassifyTask::kName) {
      throw llm::Error(fmt::format("checkpoint '{}' is {}'s; expected a classifier's (ch06-04-finetune)", path,
                                   llm::make_task(run.task)->run_kind()));
    }
    c.model = llm::checkpoint_model(checkpoint, path);
    c.max_length = run.max_length;
    c.token = llm::parse_class_token(run.class_token);
    c.num_classes = run.num_classes;
  } else if (args.count("load-state-dict") != 0) {
    const auto path = args["load-state-dict"].as<std::string>();
    c.num_classes = llm::cli::positive_flag(args, "num-classes");
    if (c.num_classes < 2) {
      throw llm::cli::BadFlagValue(fmt::format("--num-classes must be at least 2, got {}", c.num_classes));
    }
    c.model = llm::model_config_from_flags(args).make();
    llm::make_classifier(*c.model, c.num_classes, "last-block");
    llm::load_state_dict(*c.model, llm::load_tensors(path), path);
    c.max_length = 120;  // the lesson's train_dataset.max_length
  } else {
    throw llm::cli::BadFlagValue("which classifier? --checkpoint FILE (ch06-04-finetune's) or --load-state-dict FILE "
                                 "(a classifier's state dict, with --config and --num-classes)");
  }
  if (args.count("max-length") != 0) c.max_length = llm::cli::positive_flag(args, "max-length");
  if (args.count("class-token") != 0) c.token = llm::parse_class_token(args["class-token"].as<std::string>());
  c.model->to(llm::cli::device(args));
  return c;
}

// --text flags, each whole (cxxopts would split a list flag's value at its commas), then
// --data's lines (blank lines skipped); the lesson's two texts when neither is given.
std::vector<std::string> texts_to_classify(const cxxopts::ParseResult& args) {
  std::vector<std::string> texts;
  for (const auto& given : args.arguments()) {
    if (given.key() == "text") texts.push_back(given.value());
  }
  if (args.count("data") != 0) {
    std::istringstream lines(llm::read_text_file(args["data"].as<std::string>()));
    for (std::string line; std::getline(lines, line);) {
      if (line.find_first_not_of(" \t\r") != std::string::npos) texts.push_back(line);
    }
  }
  if (texts.empty() && args.count("data") == 0) {
    texts = {"You are a winner you have been specially selected to receive $1000 cash or a $2000 award.",
             "Hey, just wanted to check if we're still on for dinner tonight? Let me know!"};
  }
  if (texts.empty()) throw llm::Error(fmt::format("'{}': no text to classify", args["data"].as<std::string>()));
  return texts;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch06-05-classify", "Lesson 6.8: classify texts as spam or not spam");
  options.add_options("Classifier")(
      "checkpoint", "A ch06-04-finetune checkpoint", cxxopts::value<std::string>(), "FILE")(
      "load-state-dict", "A classifier's state dict (the lesson's review_classifier.pth)",
      cxxopts::value<std::string>(), "FILE")(
      "num-classes", "With --load-state-dict: the head's classes", cxxopts::value<int64_t>()->default_value("2"), "N")(
      "max-length",
      "Pad or cut each text to this many tokens (default: the checkpoint's training length; 120, the lesson's, for "
      "a state dict)",
      cxxopts::value<int64_t>(), "N")(
      "class-token", "last or first (default: the checkpoint's; last)", cxxopts::value<std::string>(), "WHICH")(
      "text", "A text to classify (repeatable)", cxxopts::value<std::string>(), "TEXT")(
      "data", "A file of texts to classify, one per line", cxxopts::value<std::string>(), "FILE");
  llm::add_config_flag(options, "gpt2-124m-finetune.json");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto texts = texts_to_classify(args);
    auto classifier = load_classifier(args);
    const auto tokenizer = llm::BpeTokenizer::gpt2();
    std::vector<int64_t> labels;
    for (const auto& text : texts) {
      const auto label =
          llm::classify_review(*classifier.model, tokenizer, text, classifier.max_length, classifier.token);
      labels.push_back(label);
      const bool spam_or_not = classifier.num_classes == 2;  // the lesson's words
      // The lesson's label, then which text it is for, on one line.
      fmt::print("{}: {}\n", spam_or_not ? (label == 1 ? "spam" : "not spam") : fmt::format("class {}", label),
                 llm::shortened(llm::printable(llm::one_line(text))));
    }
    if (args.count("save-outputs") != 0) {
      llm::save_tensors(args["save-outputs"].as<std::string>(),
                        {{"labels", torch::tensor(labels, torch::kLong)},
                         {"max_length", torch::tensor(classifier.max_length)}});
    }
  });
}
