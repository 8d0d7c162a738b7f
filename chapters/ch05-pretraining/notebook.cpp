#include "notebook.h"

#include <fmt/format.h>

#include <chrono>
#include <unordered_set>

#include "llm/cli/cli.h"
#include "llm/cli/model_flags.h"
#include "llm/cli/train_flags.h"
#include "llm/io/tensor_archive.h"
#include "llm/model/generate.h"
#include "llm/model/rope_decoder.h"
#include "llm/nn/module_repr.h"
#include "llm/reference/recording.h"
#include "llm/text/tokenizer_json.h"
#include "llm/util/error.h"
#include "llm/util/memory.h"
#include "llm/util/show.h"

namespace lesson {
namespace {

// New tokens of a random model when --max-new-tokens is not given: its text is noise,
// and the notebook's hundreds of tokens would only take time.
constexpr int64_t kRandomModelTokens = 10;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool has_weights(const cxxopts::ParseResult& args) {
  return args.count("model-dir") != 0 || args.count("checkpoint") != 0 || args.count("load-state-dict") != 0;
}

// The notebook's sum(p.numel() for p in model.parameters()): each tensor once.
struct Counts {
  int64_t parameters = 0, trainable = 0;
};
Counts count_parameters(const torch::nn::Module& model) {
  Counts counts;
  std::unordered_set<const void*> seen;
  for (const auto& parameter : model.parameters()) {
    if (!seen.insert(parameter.unsafeGetTensorImpl()).second) continue;
    counts.parameters += parameter.numel();
    if (parameter.requires_grad()) counts.trainable += parameter.numel();
  }
  return counts;
}

// What every cell reads: the flags, the model and its tokenizer, the prompt.
struct Run {
  const Notebook& notebook;
  const cxxopts::ParseResult& args;
  llm::LanguageModel model;
  llm::RopeDecoderImpl& decoder;
  llm::BpeTokenizer tokenizer;
  torch::Tensor prompt;  // [1, n]
  llm::SamplingOptions sampling;
  llm::NamedTensors record;  // what --save-outputs writes
};

llm::RopeDecoderImpl& rope_decoder(llm::LanguageModel& model, const Notebook& notebook) {
  auto* decoder = dynamic_cast<llm::RopeDecoderImpl*>(model.get());
  if (decoder == nullptr) {
    throw llm::Error(fmt::format("{} builds Llama 3.2, Qwen3 or Gemma 3 models; the config is of the family '{}'",
                                 notebook.program, model->family()));
  }
  return *decoder;
}

void print_logits(Run& run) {
  const auto ids = torch::tensor({1, 2, 3}, torch::kLong).unsqueeze(0).to(run.model->device());
  const auto logits = run.model->forward(ids);  // [1, 3, vocab_size], with autograd as in the notebook
  fmt::print("{}\n\n", llm::show(logits));
  run.record.emplace_back("logits", logits.detach().to(torch::kCPU));
}

void print_parameters(Run& run) {
  const auto counts = count_parameters(*run.model);
  fmt::print("Total number of parameters: {}\n\n", llm::thousands(counts.parameters));
  fmt::print("Total number of unique parameters: {}\n\n",
             llm::thousands(counts.parameters - run.decoder.tok_emb->weight.numel()));
  run.record.emplace_back("parameters", torch::tensor(counts.parameters));
}

// The notebook's calc_model_memory_size: parameters, their gradients and the buffers
// (the RoPE tables), each element of the dtype's size.
void print_memory(Run& run) {
  const auto counts = count_parameters(*run.model);
  const double elements = static_cast<double>(counts.parameters + counts.trainable + run.decoder.rope_table_elements());
  fmt::print("float32 (PyTorch default): {:.2f} GB\nbfloat16: {:.2f} GB\n\n", elements * 4 / kGiB, elements * 2 / kGiB);
  run.record.emplace_back("memory_elements", torch::tensor(elements, torch::kDouble));
}

void print_weights(Run& run) {
  if (!has_weights(run.args)) {
    fmt::print("Weights: {}. The notebook loads the pretrained weights (--model-dir DIR reads the Hub's "
               "folder); the text below is a random model's.\n\n",
               llm::model_source(run.args));
    return;
  }
  fmt::print("Weights: {}\n", llm::model_source(run.args));
  if (llm::is_tied(run.decoder.out_head->weight, run.decoder.tok_emb->weight)) fmt::print("Model uses weight tying.\n");
  fmt::print("\n");
}

void print_prompt(Run& run) {
  fmt::print("{}\n\n", llm::python_repr(llm::token_ids_to_text(run.tokenizer, run.prompt)));
}

// The new ids of a generation, timed.
struct Generated {
  torch::Tensor ids;  // [1, prompt + new]
  int64_t new_tokens;
  double seconds;
};

Generated generate(Run& run) {
  run.model->eval();
  torch::manual_seed(llm::cli::seed(run.args));  // as the Llama notebook seeds before generate()
  const auto start = std::chrono::steady_clock::now();
  auto ids = llm::generate(*run.model, run.prompt, run.sampling);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {ids, ids.size(1) - run.prompt.size(1), elapsed.count()};
}

std::string new_text(const Run& run, const Generated& generated) {
  return llm::token_ids_to_text(run.tokenizer, generated.ids.slice(1, run.prompt.size(1)));
}

// Python's str.strip(): the notebook's clean_text strips the answer.
std::string stripped(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

void print_peak_memory() {
  fmt::print("Peak memory (resident): {:.2f} GB\n", static_cast<double>(llm::peak_resident_memory()) / kGiB);
}

void print_stream(Run& run) {
  const auto generated = generate(run);
  fmt::print("{}\n\n", new_text(run, generated));
  const double speed = generated.seconds > 0 ? static_cast<double>(generated.new_tokens) / generated.seconds : 0.0;
  fmt::print("Generation speed: {:.2f} tokens/sec\n", speed);
  print_peak_memory();
  run.record.emplace_back("generated", generated.ids.to(torch::kCPU));
}

void print_timed(Run& run) {
  const auto generated = generate(run);
  fmt::print("Time: {:.2f} sec\n", generated.seconds);
  print_peak_memory();
  fmt::print("\n\nOutput text:\n\n {}\n", stripped(new_text(run, generated)));
  run.record.emplace_back("generated", generated.ids.to(torch::kCPU));
}

void print_cell(Run& run, Cell cell) {
  switch (cell) {
    case Cell::kModel: return fmt::print("{}\n\n", llm::module_repr(*run.model));
    case Cell::kLogits: return print_logits(run);
    case Cell::kParameters: return print_parameters(run);
    case Cell::kMemory: return print_memory(run);
    case Cell::kWeights: return print_weights(run);
    case Cell::kPrompt: return print_prompt(run);
    case Cell::kStream: return print_stream(run);
    case Cell::kTimed: return print_timed(run);
  }
}

llm::SamplingOptions sampling_of(const cxxopts::ParseResult& args) {
  auto sampling = llm::sampling_from_flags(args);
  if (!has_weights(args) && args.count("max-new-tokens") == 0) sampling.max_new_tokens(kRandomModelTokens);
  return sampling.kv_cache(args.count("kv-cache") != 0);
}

void run_cells(const Notebook& notebook, const cxxopts::ParseResult& args) {
  const auto sampling = sampling_of(args);  // flags first, then the data
  auto trained = llm::trained_model_from_flags(args, [&] { return llm::tokenizer_named(notebook.tokenizer); });
  auto& model = trained.model;
  auto& decoder = rope_decoder(model, notebook);
  const auto ids = llm::encode_chat(trained.tokenizer, notebook.chat, {{"user", args["prompt"].as<std::string>()}},
                                    notebook.chat_options);
  const auto prompt = torch::tensor(ids).unsqueeze(0).to(model->device());  // [1, n]
  Run run{notebook, args, model, decoder, std::move(trained.tokenizer), prompt, sampling,
          llm::model_header("notebook", llm::cli::seed(args), *model)};
  const int64_t largest = run.prompt.max().item<int64_t>(), vocab_size = model->shape().vocab_size;
  if (largest >= vocab_size) {
    throw llm::Error(fmt::format("the prompt has token id {}; the model's vocabulary has {} tokens (its config's "
                                 "vocab_size): give a config of this tokenizer's vocabulary",
                                 largest, vocab_size));
  }
  if (notebook.stops_at_turn_end && !sampling.eos_id()) {
    run.sampling.eos_id(llm::chat_stop_ids(run.tokenizer, notebook.chat).front());
  }
  for (const auto cell : notebook.cells) print_cell(run, cell);
  if (args.count("save-outputs") != 0) {
    run.record.emplace_back("prompt", run.prompt.to(torch::kCPU));
    run.record.emplace_back("kv_cache", torch::tensor(sampling.kv_cache()));
    run.record.emplace_back("max_new_tokens", torch::tensor(run.sampling.max_new_tokens()));
    run.record.emplace_back("eos_id", torch::tensor(run.sampling.eos_id().value_or(-1)));
    llm::save_tensors(args["save-outputs"].as<std::string>(), run.record);
  }
  llm::save_weights_flags(args, *model);
}

// The notebook whose flag is given, else the first: a parse of just the variants'
// flags, before the step's options (whose defaults are that notebook's) are built. A
// malformed command line is left to the full parse, which reports it.
const Notebook& picked(int argc, char** argv, const std::vector<Notebook>& notebooks) {
  cxxopts::Options variants(notebooks.front().program);
  variants.allow_unrecognised_options();
  for (const auto& notebook : notebooks) {
    if (!notebook.flag.empty()) variants.add_options()(notebook.flag, notebook.flag_help);
  }
  try {
    const auto args = variants.parse(argc, argv);
    for (const auto& notebook : notebooks) {
      if (!notebook.flag.empty() && args.count(notebook.flag) != 0) return notebook;
    }
  } catch (const cxxopts::exceptions::exception&) {
  }
  return notebooks.front();
}

}  // namespace

int run_notebook(int argc, char** argv, const std::vector<Notebook>& notebooks) {
  const auto& notebook = picked(argc, argv, notebooks);
  auto options = llm::cli::options(notebook.program, notebook.description);
  llm::add_trained_model_flags(options, notebook.config);
  llm::add_sampling_flags(options, notebook.prompt, notebook.max_new_tokens);
  options.add_options("Sampling")(
      "kv-cache", "Generate with a KV cache, as the notebook's -plus-kvcache twin does (the same tokens, faster)");
  for (const auto& variant : notebooks) {
    if (!variant.flag.empty()) options.add_options("Model")(variant.flag, variant.flag_help);
  }
  return llm::cli::run(options, argc, argv, [&](const cxxopts::ParseResult& args) { run_cells(notebook, args); });
}

}  // namespace lesson
