// The decode kernels for AVX-512F (16 floats a register); compiled with -mavx512f and
// called only on CPUs (and OSes) that have it (best_kernel_isa).
#include <immintrin.h>

#include "llm/nn/matvec_kernels.h"
#include "llm/nn/matvec_rows.h"

namespace llm::kernels {
namespace {

// bfloat16, 16 weights a step: widened to 32 bits, then shifted into the upper half.
// (The even/odd split of matvec_avx2.cpp was slower in 512 bits, on Zen 4 and on a
// Xeon alike.)
struct Bf16 {
  static constexpr int64_t kStep = 16;
  static __m512 zero() { return _mm512_setzero_ps(); }
  static __m512 load_x(const float* x) { return _mm512_loadu_ps(x); }
  static void step(const uint16_t* w, __m512 x, __m512& acc) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    acc = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16)), x, acc);
  }
  static float sum(__m512 acc) { return _mm512_reduce_add_ps(acc); }
};

// int8, 16 weights a step: sign-extended to 32 bits, then converted.
struct Int8 {
  static constexpr int64_t kStep = 16;
  static __m512 zero() { return _mm512_setzero_ps(); }
  static __m512 load_x(const float* x) { return _mm512_loadu_ps(x); }
  static void step(const int8_t* w, __m512 x, __m512& acc) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes)), x, acc);
  }
  static float sum(__m512 acc) { return _mm512_reduce_add_ps(acc); }
};

}  // namespace

void dot_rows_bf16_avx512(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Bf16>(w, x, y, rows, in);
}
void dot_rows_int8_avx512(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Int8>(w, x, y, rows, in);
}

}  // namespace llm::kernels
