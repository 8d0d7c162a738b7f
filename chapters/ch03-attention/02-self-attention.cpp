// Lesson 3.4: self-attention with trainable query, key and value weights, scaled by
// sqrt(d_k). V1 holds raw matrices (torch.rand); V2 uses Linear layers.
#include <fmt/format.h>

#include "llm/cli/attention_flags.h"
#include "llm/attention/self_attention.h"
#include "llm/cli/cli.h"
#include "llm/util/error.h"
#include "llm/util/show.h"
#include "llm/reference/recording.h"

int main(int argc, char** argv) {
  auto options = llm::cli::options("ch03-02-self-attention", "SelfAttentionV1 and V2 on the lesson's sentence");
  llm::add_attention_flags(options);
  options.add_options()("version", "1: raw weight matrices, 2: Linear layers", cxxopts::value<int>()->default_value("1"));

  return llm::cli::run(options, argc, argv, [](const cxxopts::ParseResult& args) {
    const auto device = llm::cli::device(args);
    const auto o = llm::attention_options(args);
    const int version = args["version"].as<int>();
    if (version != 1 && version != 2) throw llm::Error(fmt::format("--version must be 1 or 2, got {}", version));

    const auto run = [&](auto module, const std::string& kind) {
      module->to(device);
      const auto x = llm::attention_input({o.context_length(), o.d_in()}).to(device);  // [t, d_in]
      const auto out = module->forward(x);                                    // [t, d_out]
      for (const auto& p : module->named_parameters()) fmt::print("{}:\n{}\n", p.key(), llm::show(p.value()));
      fmt::print("Context vectors ({} x {}):\n{}\n", out.size(0), out.size(1), llm::show(out));
      if (args.count("save-outputs") != 0) {
        llm::save_tensors(args["save-outputs"].as<std::string>(),
                          llm::record_attention_run(kind, llm::cli::seed(args), o, module, x, out));
      }
    };
    if (version == 1) {
      run(llm::SelfAttentionV1(o), "self_attention_v1");
    } else {
      run(llm::SelfAttentionV2(o), "self_attention_v2");
    }
  });
}
