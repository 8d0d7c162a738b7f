// A local server for a trained model: Ollama's and OpenAI's APIs (/api/generate,
// /api/chat, /v1/chat/completions, ...), streamed or whole, and a chat page at "/".
// It loads a checkpoint, a state dict with its config, or a Hugging Face folder, and
// answers requests one at a time from a bounded queue. A chapter-6 classifier, its
// checkpoint or its state dict (--num-classes), is served at /api/classify, with a
// page that classifies a text.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/io/state_dict.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/classifier.h"
#include "llm/nn/linear.h"
#include "llm/serve/model_engine.h"
#include "llm/serve/server.h"
#include "llm/util/error.h"
#include "llm/util/interrupt.h"

namespace {

void add_server_flags(cxxopts::Options& options) {
  options.add_options("Server")("host", "Address to listen on (127.0.0.1: this machine only)",
                                cxxopts::value<std::string>()->default_value("127.0.0.1"), "ADDR")(
      "port", "Port to listen on (0: any free port, printed at the start)", cxxopts::value<int>()->default_value("8080"),
      "N")("name", "The model's name in the APIs (default: the checkpoint's or folder's file name)",
           cxxopts::value<std::string>(), "NAME")(
      "chat-format", "How a conversation becomes a prompt: auto (the model's own), text, alpaca, phi3, qwen3, llama3 "
                     "or gemma3",
      cxxopts::value<std::string>()->default_value("auto"), "NAME")(
      "queue", "Requests that may wait while one is answered; more are refused with 429",
      cxxopts::value<int64_t>()->default_value("8"), "N")(
      "max-body-bytes", "The longest request body (413 above it)", cxxopts::value<int64_t>()->default_value("1048576"),
      "N");
  options.add_options("Classifier")(
      "num-classes", "--load-state-dict is a chapter-6 classifier's state dict with N classes (the lesson's "
                     "review_classifier.pth: 2), on the GPT of --config",
      cxxopts::value<int64_t>(), "N")(
      "max-length", "With --num-classes: the text length it was trained on (default: the lesson's 120; a checkpoint "
                    "knows its own)",
      cxxopts::value<int64_t>(), "N");
  options.add_options("Sampling")("max-new-tokens", "Tokens an answer gets when its request does not say",
                                  cxxopts::value<int64_t>()->default_value("256"), "N")(
      "max-tokens-limit", "The most tokens a request may ask for (400 above it)",
      cxxopts::value<int64_t>()->default_value("4096"), "N")(
      "temperature", "Temperature for requests that do not say (0: greedy)",
      cxxopts::value<double>()->default_value("0"), "T")(
      "top-k", "Top-k for requests that do not say (0: all tokens)", cxxopts::value<int64_t>()->default_value("0"), "K");
  llm::add_weights_dtype_flag(options);
}

// The model's own format: its family's chat template, a chapter-7 checkpoint's prompt
// style, or plain text for a pretrained model.
std::string chat_format_flag(const cxxopts::ParseResult& args) {
  return llm::cli::choice_flag(args, "chat-format", {"auto", "text", "alpaca", "phi3", "qwen3", "llama3", "gemma3"});
}

std::string chat_format_of(const cxxopts::ParseResult& args, const llm::TrainedModel& trained) {
  const auto flag = chat_format_flag(args);
  if (flag != "auto") return flag;
  const std::string family(trained.model->family());
  if (family != "gpt2") return family;
  if (trained.run && trained.run->task != "pretrain") return trained.run->prompt_style;
  return "text";
}

std::string model_name_of(const cxxopts::ParseResult& args) {
  if (args.count("name") != 0) return args["name"].as<std::string>();
  for (const char* flag : {"checkpoint", "model-dir", "load-state-dict"}) {
    if (args.count(flag) != 0) {
      const auto name = std::filesystem::path(args[flag].as<std::string>()).lexically_normal();
      const auto stem = (name.has_filename() ? name : name.parent_path()).stem().string();
      return stem == "checkpoint" && name.has_parent_path() ? name.parent_path().filename().string() : stem;
    }
  }
  return "untrained";
}

// How a classifier reads a text: its training length and the token it classifies.
struct ClassifierSettings {
  int64_t max_length;
  llm::ClassToken token;
};

// The model the flags name. A chapter-6 classifier comes as its checkpoint, or as its
// state dict: --load-state-dict with --num-classes, the head replaced as lesson 6.5
// does before its weights load (the lesson's last-token reading, its length of 120).
llm::TrainedModel load_model(const cxxopts::ParseResult& args, std::optional<ClassifierSettings>& classifier) {
  if (args.count("num-classes") == 0) {
    if (args.count("max-length") != 0) {
      throw llm::cli::BadFlagValue("--max-length goes with --num-classes; a checkpoint knows its own");
    }
    auto trained = llm::trained_model_from_flags(args);
    if (trained.run && trained.run->task == "classify") {
      classifier = ClassifierSettings{trained.run->max_length, llm::parse_class_token(trained.run->class_token)};
    }
    return trained;
  }
  if (args.count("load-state-dict") == 0 || args.count("checkpoint") != 0 || args.count("model-dir") != 0) {
    throw llm::cli::BadFlagValue("--num-classes goes with --load-state-dict FILE (a classifier's state dict) and --config");
  }
  const int64_t classes = llm::cli::positive_flag(args, "num-classes");
  if (classes < 2) throw llm::cli::BadFlagValue(fmt::format("--num-classes must be at least 2, got {}", classes));
  const int64_t max_length = args.count("max-length") != 0 ? llm::cli::positive_flag(args, "max-length") : 120;
  const auto path = args["load-state-dict"].as<std::string>();
  const llm::ConvertLinearsWhenBuilt converted(llm::weights_dtype_from_flags(args));  // as each layer is loaded
  llm::TrainedModel trained{llm::model_config_from_flags(args).make(), llm::BpeTokenizer::gpt2(), std::nullopt,
                            std::nullopt};
  llm::make_classifier(*trained.model, classes, "last-block");
  llm::load_state_dict(*trained.model, llm::load_tensors(path), path);
  trained.model->to(llm::cli::device(args));
  classifier = ClassifierSettings{max_length, llm::ClassToken::kLast};
  return trained;
}

llm::serve::ServerOptions server_options(const cxxopts::ParseResult& args) {
  llm::serve::ServerOptions o;
  o.host = args["host"].as<std::string>();
  const int port = args["port"].as<int>();
  if (port < 0 || port > 65535) throw llm::cli::BadFlagValue(fmt::format("--port must be 0 to 65535, got {}", port));
  o.port = port;
  o.model_name = model_name_of(args);
  if (o.model_name.empty()) throw llm::cli::BadFlagValue("--name is empty; expected the model's name in the APIs");
  o.max_body_bytes = static_cast<size_t>(llm::cli::positive_flag(args, "max-body-bytes"));
  o.default_max_tokens = llm::cli::positive_flag(args, "max-new-tokens");
  o.max_tokens_limit = llm::cli::positive_flag(args, "max-tokens-limit");
  if (o.default_max_tokens > o.max_tokens_limit) {
    throw llm::cli::BadFlagValue(fmt::format("--max-new-tokens ({}) is more than --max-tokens-limit ({})",
                                             o.default_max_tokens, o.max_tokens_limit));
  }
  // The same checks a request's values get (SamplingOptions::validate).
  const auto sampling = llm::SamplingOptions(o.default_max_tokens)
                            .temperature(args["temperature"].as<double>())
                            .top_k(args["top-k"].as<int64_t>());
  try {
    sampling.validate();
  } catch (const llm::Error& e) {
    throw llm::cli::BadFlagValue(fmt::format("--temperature or --top-k: {}", e.what()));
  }
  o.default_temperature = sampling.temperature();
  o.default_top_k = sampling.top_k();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = llm::cli::options("serve", "Serve a trained model over Ollama's and OpenAI's APIs, with a chat page");
  llm::add_trained_model_flags(options);
  add_server_flags(options);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    auto server_settings = server_options(args);  // flags first, then the model
    const auto queue = static_cast<size_t>(llm::cli::positive_flag(args, "queue"));
    server_settings.connections = queue + 8;  // the waiting answers, the one under way, and a few quick requests
    chat_format_flag(args);
    llm::weights_dtype_from_flags(args);
    std::optional<ClassifierSettings> classifier;
    auto trained = load_model(args, classifier);
    const auto format = llm::serve::PromptFormat::named(classifier ? "text" : chat_format_of(args, trained));
    server_settings.family = std::string(trained.model->family());
    // A chapter-6 classifier answers /api/classify with its training length and token;
    // a language model generates, one answer at a time from the queue.
    std::unique_ptr<llm::serve::ModelClassifier> classify;
    std::unique_ptr<llm::serve::ModelEngine> generate;
    if (classifier) {
      classify = std::make_unique<llm::serve::ModelClassifier>(trained.model, trained.tokenizer, classifier->max_length,
                                                               classifier->token);
    } else {
      generate = std::make_unique<llm::serve::ModelEngine>(trained.model, queue);
    }
    llm::serve::Server server({generate.get(), classify.get()}, trained.tokenizer, format, server_settings);
    const int port = server.bind();

    llm::StopOnSignal stop_on_signal;
    std::atomic<bool> done{false};
    std::thread watcher([&] {  // Ctrl-C: the server stops taking requests and ends the answers under way
      while (!done && !llm::StopOnSignal::requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      server.stop();
    });
    if (classifier) {
      fmt::print("Model: {} ({}, {}), a classifier of texts up to {} tokens\n", server_settings.model_name,
                 server_settings.family, llm::model_source(args), classifier->max_length);
    } else {
      fmt::print("Model: {} ({}, {}), chat format {}, context {} tokens\n", server_settings.model_name,
                 server_settings.family, llm::model_source(args), format.name(), generate->context_length());
    }
    fmt::print("Serving on http://{}:{}/ (the chat page; Ollama's API under /api, OpenAI's under /v1); Ctrl-C stops\n",
               server_settings.host, port);
    server.listen();
    done = true;
    watcher.join();
    if (generate) generate->stop();
    if (llm::StopOnSignal::requested()) fmt::print("Stopped by {}\n", llm::StopOnSignal::signal_name());
  });
}
