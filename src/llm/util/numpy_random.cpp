#include "llm/util/numpy_random.h"

#include <fmt/format.h>

#include <utility>

#include "llm/util/error.h"

namespace llm {

NumpyRandomState::NumpyRandomState(uint32_t seed) {
  // init_genrand: Knuth's multiplier, as in MT19937's reference code.
  state_[0] = seed;
  for (uint32_t i = 1; i < state_.size(); ++i) state_[i] = 1812433253U * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
}

void NumpyRandomState::twist() {
  constexpr size_t n = 624, m = 397;
  constexpr uint32_t kMatrix = 0x9908b0dfU, kUpper = 0x80000000U, kLower = 0x7fffffffU;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t y = (state_[i] & kUpper) | (state_[(i + 1) % n] & kLower);
    state_[i] = state_[(i + m) % n] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrix : 0U);
  }
  position_ = 0;
}

uint32_t NumpyRandomState::next_uint32() {
  if (position_ >= state_.size()) twist();
  uint32_t y = state_[position_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

uint64_t NumpyRandomState::interval(uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max;
  for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
  uint64_t value;
  if (max <= 0xffffffffULL) {
    do value = next_uint32() & mask; while (value > max);
  } else {
    do value = ((static_cast<uint64_t>(next_uint32()) << 32) | next_uint32()) & mask; while (value > max);
  }
  return value;
}

std::vector<int64_t> NumpyRandomState::permutation(int64_t n) {
  if (n < 0) throw Error(fmt::format("permutation: n must not be negative, got {}", n));
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i;
  for (int64_t i = n - 1; i >= 1; --i) {
    std::swap(values[static_cast<size_t>(i)], values[interval(static_cast<uint64_t>(i))]);
  }
  return values;
}

std::vector<int64_t> NumpyRandomState::choice_without_replacement(int64_t n, int64_t size) {
  if (size < 0 || size > n) {
    throw Error(fmt::format("choice without replacement: size must be in 0..{}, got {}", n, size));
  }
  auto values = permutation(n);
  values.resize(static_cast<size_t>(size));
  return values;
}

}  // namespace llm
