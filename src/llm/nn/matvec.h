#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace llm {

/// The vector instructions the decode kernels run on.
enum class KernelIsa { kPortable, kAvx2, kAvx512 };

/// The widest this CPU and its OS support, found once: AVX-512F, else AVX2 with FMA,
/// else the portable loop (any CPU, as the compiler vectorises it).
KernelIsa best_kernel_isa();
/// Every ISA this CPU runs, narrowest first (kPortable always), for tests and benchmarks.
std::vector<KernelIsa> supported_kernel_isas();
std::string_view kernel_isa_name(KernelIsa isa);

/// Decoding reads each weight once per token, so its speed is the bytes of weights
/// read per second. These matrix-vector products read fewer: y = W x + bias for one
/// row x [in] of float32, with W [out, in] (row-major, contiguous) kept in 16 or 8 bits
/// and widened to float32 inside the kernel; the products are summed in float32.
/// `bias` may be null. The rows of W are split over LibTorch's threads.
///
/// W in bfloat16: the upper 16 bits of a float32, widened by a shift.
void matvec_bf16(const c10::BFloat16* weight, const float* x, const float* bias, float* y, int64_t out, int64_t in,
                 KernelIsa isa = best_kernel_isa());
/// W in int8 with a float32 scale per output row: y[o] = scale[o] * sum_i W[o, i] x[i] + bias[o].
void matvec_int8(const int8_t* weight, const float* scale, const float* x, const float* bias, float* y, int64_t out,
                 int64_t in, KernelIsa isa = best_kernel_isa());

/// Runs body(begin, end) over the rows [0, out) in at most at::get_num_threads()
/// chunks of at least `grain` rows, each on a thread of LibTorch's intra-op team
/// (--threads): the decode kernels' split. Inside a parallel region, one chunk.
void parallel_rows(int64_t out, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

/// Weight-only, per-output-channel symmetric int8 of a weight [out, in]: scale[o] =
/// max_i |W[o, i]| / 127 (1 for a row of zeros) and q = round(W / scale), so that
/// q * scale is within scale / 2 of W. Returns {q [out, in] int8, scale [out] float32}.
std::pair<torch::Tensor, torch::Tensor> quantize_int8(const torch::Tensor& weight);
/// The same into `q` and `scale`, which must have those shapes and dtypes: no new memory.
void quantize_int8(const torch::Tensor& weight, const torch::Tensor& q, const torch::Tensor& scale);

}  // namespace llm
