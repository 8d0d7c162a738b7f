// The GPTs of chapter 4's KV-cache bonus, one per run, for scripts/bench/kv_family.sh:
// --variant builds the model the course's gpt_with_kv_<variant>.py builds (seed 123,
// bfloat16, the script's flags) and runs it as the lesson steps run theirs
// (cli::run_course_script), printing what the script prints. "mha" is the scripts'
// multi-head attention, which keeps no mask buffer: the sliding-window layout with no
// sliding layer (the lesson's MultiHeadAttention holds a context_length^2 mask).
#include <algorithm>

#include "llm/cli/cli.h"
#include "llm/cli/course_script.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("bench-kv-family", "One GPT of chapter 4's KV-cache bonus, as its script runs it");
  llm::cli::add_course_script_flags(options);
  options.add_options("Variant")(
      "variant", "mha, gqa, mla, swa or moe", cxxopts::value<std::string>()->default_value("mha"), "NAME")(
      "n-kv-groups", "Key/value groups (gqa)", cxxopts::value<int64_t>()->default_value("2"), "N")(
      "latent-dim", "Latent dim (mla; default: max(16, emb-dim / 8))", cxxopts::value<int64_t>(), "N")(
      "sliding-window-size", "Window (swa; default: 1024, or the whole context when shorter)",
      cxxopts::value<int64_t>(), "N")(
      "sliding-window-stride", "K of the K:1 schedule (swa)", cxxopts::value<int64_t>()->default_value("2"), "K")(
      "hidden-dim", "Feed-forward or expert width (moe)", cxxopts::value<int64_t>()->default_value("3072"), "N")(
      "num-experts", "Experts (moe; 0: dense)", cxxopts::value<int64_t>()->default_value("0"), "N")(
      "num-experts-per-tok", "Experts per token (moe)", cxxopts::value<int64_t>()->default_value("2"), "K");

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto variant = llm::cli::choice_flag(args, "variant", {"mha", "gqa", "mla", "swa", "moe"});
    const auto config = llm::cli::course_script_config(args, [&](llm::GPTConfig& c) {
      if (variant == "mha") {
        c.attention = "swa";
        c.sliding_window_size = c.context_length;
        c.sliding_window_stride = 0;  // no layer slides
      } else if (variant == "gqa") {
        c.attention = "gqa";
        c.n_kv_groups = args["n-kv-groups"].as<int64_t>();
      } else if (variant == "mla") {
        c.attention = "mla";
        if (args.count("latent-dim") != 0) c.latent_dim = args["latent-dim"].as<int64_t>();
      } else if (variant == "swa") {
        c.attention = "swa";
        c.sliding_window_size = args.count("sliding-window-size") != 0 ? args["sliding-window-size"].as<int64_t>()
                                                                     : std::min<int64_t>(1024, c.context_length);
        c.sliding_window_stride = args["sliding-window-stride"].as<int64_t>();
      } else {
        c.hidden_dim = args["hidden-dim"].as<int64_t>();
        c.num_experts = args["num-experts"].as<int64_t>();
        if (*c.num_experts > 0) c.num_experts_per_tok = args["num-experts-per-tok"].as<int64_t>();
      }
    });
    llm::cli::run_course_script(config, args, /*kv_cache=*/true, variant == "moe" ? "Avg MoE FF time/call" : "");
  });
}
