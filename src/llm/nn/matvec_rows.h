#pragma once

// The one algorithm of every row kernel (matvec_kernels.h), written once over a step
// type `V` that each instruction set's file defines in its own anonymous namespace (so
// that no two files share an instantiation):
//
//   V::kStep                 weights of a row one step reads
//   V::Acc, V::zero()        a row's accumulators, zeroed
//   V::load_x(x)             the kStep inputs a step multiplies, as the step wants them
//   V::step(w, xs, acc)      acc += the products of kStep weights from w with xs
//   V::sum(acc)              the sum of the accumulators' lanes
//
// Four rows at a time share each step's inputs; the last in % kStep weights of a row
// are summed one by one. Each step also asks for the weights two blocks of four rows
// ahead (as much as the step reads), which the hardware prefetcher does not fetch in
// time by itself: on a Zen 4 core that took one thread's bfloat16 product of GPT-2's
// output layer from 3.6-3.9 ms to 1.6-2.0 ms (docs/benchmarks.md).

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace llm::kernels {

/// One weight as a float: bfloat16's bits shifted into a float32's upper half.
inline float widen_scalar(uint16_t bits) {
  const uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value = 0.0F;
  std::memcpy(&value, &word, sizeof value);
  return value;
}
inline float widen_scalar(int8_t q) { return static_cast<float>(q); }

template <typename V, typename W>
void dot_rows(const W* w, const float* x, float* y, int64_t rows, int64_t in) {
  const int64_t body = in - in % V::kStep;
  const auto tail = [&](const W* row) {
    float s = 0.0F;
    for (int64_t i = body; i < in; ++i) s += widen_scalar(row[i]) * x[i];
    return s;
  };
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const W* w0 = w + r * in;
    const W* w1 = w0 + in;
    const W* w2 = w1 + in;
    const W* w3 = w2 + in;
    auto a0 = V::zero(), a1 = V::zero(), a2 = V::zero(), a3 = V::zero();
    // The four rows `lead` rows on (fewer near the end, so that it stays in the matrix).
    const int64_t lead = std::min<int64_t>(8, rows - r - 4);
    const auto* ahead = reinterpret_cast<const char*>(w0 + lead * in);
    constexpr int64_t kStepBytes = 4 * V::kStep * static_cast<int64_t>(sizeof(W));
    for (int64_t i = 0; i < body; i += V::kStep) {
      for (int64_t b = 0; b < kStepBytes; b += 64) __builtin_prefetch(ahead + 4 * i * sizeof(W) + b);
      const auto xs = V::load_x(x + i);
      V::step(w0 + i, xs, a0);
      V::step(w1 + i, xs, a1);
      V::step(w2 + i, xs, a2);
      V::step(w3 + i, xs, a3);
    }
    y[r] = V::sum(a0) + tail(w0);
    y[r + 1] = V::sum(a1) + tail(w1);
    y[r + 2] = V::sum(a2) + tail(w2);
    y[r + 3] = V::sum(a3) + tail(w3);
  }
  for (; r < rows; ++r) {
    const W* row = w + r * in;
    auto a = V::zero();
    for (int64_t i = 0; i < body; i += V::kStep) V::step(row + i, V::load_x(x + i), a);
    y[r] = V::sum(a) + tail(row);
  }
}

}  // namespace llm::kernels
