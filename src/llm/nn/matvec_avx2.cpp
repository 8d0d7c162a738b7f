// The decode kernels for AVX2 with FMA (8 floats a register); compiled with -mavx2
// -mfma and called only on CPUs that have both (best_kernel_isa).
#include <immintrin.h>

#include "llm/nn/matvec_kernels.h"
#include "llm/nn/matvec_rows.h"

namespace llm::kernels {
namespace {

float sum8(__m256 a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// bfloat16, 16 weights a step. A 32-bit lane holds two weights, w[2k] in its low half
// and w[2k+1] in its high half: a shift makes the first a float32, a mask the second,
// so the inputs come split into the even and the odd ones instead.
struct Bf16 {
  static constexpr int64_t kStep = 16;
  struct X {
    __m256 even, odd;
  };
  struct Acc {
    __m256 even, odd;
  };
  static Acc zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static X load_x(const float* x) {
    const __m256 lo = _mm256_loadu_ps(x), hi = _mm256_loadu_ps(x + 8);
    // shuffle_ps picks within 128-bit halves; permute4x64 puts the halves in order.
    const auto order = [](__m256 v) {
      return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
    };
    return {order(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))),
            order(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)))};
  }
  static void step(const uint16_t* w, const X& x, Acc& acc) {
    const __m256i pairs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(pairs, 16));
    const __m256 odd = _mm256_castsi256_ps(_mm256_and_si256(pairs, _mm256_set1_epi32(static_cast<int>(0xFFFF0000U))));
    acc.even = _mm256_fmadd_ps(even, x.even, acc.even);
    acc.odd = _mm256_fmadd_ps(odd, x.odd, acc.odd);
  }
  static float sum(const Acc& acc) { return sum8(_mm256_add_ps(acc.even, acc.odd)); }
};

// int8, 8 weights a step: sign-extended to 32 bits, then converted.
struct Int8 {
  static constexpr int64_t kStep = 8;
  static __m256 zero() { return _mm256_setzero_ps(); }
  static __m256 load_x(const float* x) { return _mm256_loadu_ps(x); }
  static void step(const int8_t* w, __m256 x, __m256& acc) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)), x, acc);
  }
  static float sum(__m256 acc) { return sum8(acc); }
};

}  // namespace

void dot_rows_bf16_avx2(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Bf16>(w, x, y, rows, in);
}
void dot_rows_int8_avx2(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Int8>(w, x, y, rows, in);
}

}  // namespace llm::kernels
