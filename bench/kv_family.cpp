// The GPTs of chapter 4's KV-cache bonus, one per run, for scripts/bench/kv_family.sh:
// --variant builds the model the course's gpt_with_kv_<variant>.py builds (seed 123,
// bfloat16, the script's flags) and runs it as the lesson steps run theirs
// (cli::run_course_script), printing what the script prints. "mha" is the scripts'
// multi-head attention, which keeps no mask buffer (the lesson's MultiHeadAttention
// holds a context_length^2 mask).
#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-kv-family", "One GPT of chapter 4's KV-cache bonus, as its script runs it");
  llm::cli::add_course_script_flags(options);
  options.add_options("Variant")("variant", "mha, gqa, mla, swa or moe",
                                 cxxopts::value<std::string>()->default_value("mha"), "NAME");
  for (const char* variant : {"gqa", "mla", "swa", "moe"}) llm::cli::add_course_variant_flags(options, variant);

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto variant = llm::cli::choice_flag(args, "variant", {"mha", "gqa", "mla", "swa", "moe"});
    const auto config = llm::cli::course_script_config(args, variant);
    llm::cli::run_course_script(config, args, /*kv_cache=*/args.count("no-kv-cache") == 0,
                                variant == "moe" ? "Avg MoE FF time/call" : "");
  });
}
