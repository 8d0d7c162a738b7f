#pragma once

// The row kernels behind matvec.h, one set per instruction set, each compiled in its
// own file with its own target flags (matvec_avx2.cpp, matvec_avx512.cpp; the portable
// ones in matvec.cpp). y[r] = sum_i W[r, i] x[i] for `rows` rows of `in` weights: no
// scale, no bias, no threads. The bfloat16 weights come as their raw 16 bits.

#include <cstdint>

namespace llm::kernels {

void dot_rows_bf16_portable(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in);
void dot_rows_int8_portable(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in);
void dot_rows_bf16_avx2(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in);
void dot_rows_int8_avx2(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in);
void dot_rows_bf16_avx512(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in);
void dot_rows_int8_avx512(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in);

}  // namespace llm::kernels
