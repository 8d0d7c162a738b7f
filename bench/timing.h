// Shared by the benchmark mains.
#pragma once

#include <algorithm>
#include <chrono>

namespace llm::bench {

/// Runs `f` once to warm up, then `iters` times, and returns the fastest run's seconds.
template <typename F>
double best_seconds(int iters, F&& f) {
  f();
  double best = 1e300;
  for (int i = 0; i < iters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace llm::bench
