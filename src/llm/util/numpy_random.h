#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace llm {

/// NumPy's legacy np.random.RandomState(seed), the generator pandas uses for
/// DataFrame.sample(random_state=seed): MT19937 seeded by init_genrand, and the draws
/// the lessons' data preparation makes of it. Same seed, same permutation, bit for bit.
class NumpyRandomState {
 public:
  explicit NumpyRandomState(uint32_t seed);

  /// MT19937's next 32 bits (genrand_int32).
  uint32_t next_uint32();

  /// A whole number in 0..max, as NumPy's legacy random_interval draws it: the bits of
  /// max's width, redrawn until they are not above max.
  uint64_t interval(uint64_t max);

  /// np.random.RandomState.permutation(n): 0..n-1 shuffled by Fisher-Yates from the
  /// last position down.
  std::vector<int64_t> permutation(int64_t n);

  /// RandomState.choice(n, size, replace=False), which pandas' sample(size,
  /// random_state=seed) calls: the first `size` of a permutation of n.
  std::vector<int64_t> choice_without_replacement(int64_t n, int64_t size);

 private:
  void twist();

  std::array<uint32_t, 624> state_{};
  size_t position_ = 624;
};

}  // namespace llm
