// Where a benchmark's time goes: LibTorch's autograd profiler (the legacy CPU one,
// which every LibTorch build has) around a callable, folded into self time per op.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace llm::bench {

struct OpTime {
  std::string name;
  double self_us = 0;  // time inside the op, less the ops it called
  int64_t calls = 0;
};

/// Runs `f` under the profiler and returns each op's self time, largest first; with
/// `by_shape`, each op and input shapes apart.
template <typename F>
std::vector<OpTime> profile_ops(F&& f, bool by_shape = false) {
  namespace prof = torch::autograd::profiler;
  std::map<std::string, OpTime> by_name;
  {
    prof::TLSLegacyProfilerGuard guard(
        torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU, by_shape),
        [&](const prof::thread_event_lists& threads) {
          for (const auto& events : threads) {
            struct Open {
              const prof::LegacyEvent* push;
              double children_us;
            };
            std::vector<Open> stack;
            for (const auto& event : events) {
              if (event.kind() == prof::EventKind::PushRange) {
                stack.push_back({&event, 0.0});
              } else if (event.kind() == prof::EventKind::PopRange && !stack.empty()) {
                const Open open = stack.back();
                stack.pop_back();
                const double total = open.push->cpuElapsedUs(event);
                std::string name = open.push->name();
                for (const auto& shape : open.push->shapes()) name += fmt::format(" [{}]", fmt::join(shape, ","));
                auto& op = by_name[name];
                op.name = name;
                op.self_us += total - open.children_us;
                ++op.calls;
                if (!stack.empty()) stack.back().children_us += total;
              }
            }
          }
        });
    f();
  }
  std::vector<OpTime> ops;
  for (auto& [name, op] : by_name) ops.push_back(std::move(op));
  std::sort(ops.begin(), ops.end(), [](const OpTime& a, const OpTime& b) { return a.self_us > b.self_us; });
  return ops;
}

/// Prints the `top` ops by self time with their share of the total.
inline void print_profile(const std::vector<OpTime>& ops, size_t top) {
  double total = 0;
  for (const auto& op : ops) total += op.self_us;
  fmt::print("{:<60} {:>10} {:>7} {:>7}\n", "op (self time)", "ms", "share", "calls");
  for (size_t i = 0; i < std::min(top, ops.size()); ++i)
    fmt::print("{:<60.60} {:>10.1f} {:>6.1f}% {:>7}\n", ops[i].name, ops[i].self_us / 1e3, 100 * ops[i].self_us / total,
               ops[i].calls);
  fmt::print("{:<60} {:>10.1f}\n", "total", total / 1e3);
}

}  // namespace llm::bench
