#include "llm/nn/matvec.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "llm/nn/matvec_kernels.h"
#include "llm/nn/matvec_rows.h"
#include "llm/util/error.h"

#if AT_PARALLEL_OPENMP
// LibTorch's intra-op threads are a team of GNU's OpenMP runtime (libgomp), and
// at::parallel_for is an inline template that uses them only in a file compiled with
// GCC's -fopenmp: compiled by clang, it runs every row on the calling thread. So the
// rows go to that team as GCC's `#pragma omp parallel` sends them: through
// GOMP_parallel, which runs a function on each of its threads.
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_thread_num();
int omp_get_num_threads();
}
#endif

namespace llm {

namespace kernels {
namespace {

// Eight weights a step in an array: the compiler vectorises its loops for whatever the
// build targets, which every CPU of that architecture runs.
template <typename W>
struct Portable {
  static constexpr int64_t kStep = 8;
  struct Acc {
    float v[kStep];
  };
  static Acc zero() { return Acc{}; }
  static const float* load_x(const float* x) { return x; }
  static void step(const W* w, const float* x, Acc& acc) {
    for (int64_t i = 0; i < kStep; ++i) acc.v[i] += widen_scalar(w[i]) * x[i];
  }
  static float sum(const Acc& acc) {
    float s = 0.0F;
    for (float v : acc.v) s += v;
    return s;
  }
};

}  // namespace

void dot_rows_bf16_portable(const uint16_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Portable<uint16_t>>(w, x, y, rows, in);
}
void dot_rows_int8_portable(const int8_t* w, const float* x, float* y, int64_t rows, int64_t in) {
  dot_rows<Portable<int8_t>>(w, x, y, rows, in);
}

}  // namespace kernels

namespace {

KernelIsa detect_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // libgcc's checks include the OS's: AVX-512F only where XCR0 enables its registers.
  if (__builtin_cpu_supports("avx512f")) return KernelIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return KernelIsa::kAvx2;
#endif
  return KernelIsa::kPortable;
}

void check_isa(KernelIsa isa) {
  if (static_cast<int>(isa) > static_cast<int>(best_kernel_isa())) {
    throw Error(fmt::format("decode kernels: this CPU has no {} (the best it runs is {})", kernel_isa_name(isa),
                            kernel_isa_name(best_kernel_isa())));
  }
}

// The rows split over LibTorch's threads, at least 1M weights a task (1 or 2 MB, tens
// of microseconds of reading): a smaller one costs more to hand to another thread than
// it saves, so small matrices stay on one. Then each row's scale and bias.
template <typename W, typename Kernel>
void run_rows(Kernel kernel, const W* w, const float* scale, const float* x, const float* bias, float* y, int64_t out,
              int64_t in) {
  const int64_t grain = std::max<int64_t>(4, (int64_t{1} << 20) / std::max<int64_t>(in, 1));
  parallel_rows(out, grain, [&](int64_t begin, int64_t end) {
    kernel(w + begin * in, x, y + begin, end - begin, in);
    for (int64_t o = begin; o < end; ++o) {
      if (scale != nullptr) y[o] *= scale[o];
      if (bias != nullptr) y[o] += bias[o];
    }
  });
}

}  // namespace

void parallel_rows(int64_t out, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
#if AT_PARALLEL_OPENMP
  const int64_t chunks = std::min<int64_t>(at::get_num_threads(), (out + grain - 1) / std::max<int64_t>(grain, 1));
  if (chunks <= 1 || at::in_parallel_region()) return body(0, out);
  struct Job {
    const std::function<void(int64_t, int64_t)>& body;
    int64_t out, chunks;
  } job{body, out, chunks};
  const auto run = [](void* data) {
    const auto& j = *static_cast<const Job*>(data);
    const int64_t size = (j.out + j.chunks - 1) / j.chunks;
    // The runtime may start fewer threads than asked: each takes every team-th chunk.
    for (int64_t c = omp_get_thread_num(); c < j.chunks; c += omp_get_num_threads()) {
      j.body(c * size, std::min(j.out, (c + 1) * size));
    }
  };
  GOMP_parallel(run, &job, static_cast<unsigned>(chunks), 0);
#else
  at::parallel_for(0, out, grain, body);
#endif
}

KernelIsa best_kernel_isa() {
  static const KernelIsa best = detect_isa();
  return best;
}

std::vector<KernelIsa> supported_kernel_isas() {
  std::vector<KernelIsa> isas;
  for (auto isa : {KernelIsa::kPortable, KernelIsa::kAvx2, KernelIsa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(best_kernel_isa())) isas.push_back(isa);
  }
  return isas;
}

std::string_view kernel_isa_name(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::kAvx512: return "AVX-512";
    case KernelIsa::kAvx2: return "AVX2+FMA";
    case KernelIsa::kPortable: break;
  }
  return "portable";
}

void matvec_bf16(const c10::BFloat16* weight, const float* x, const float* bias, float* y, int64_t out, int64_t in,
                 KernelIsa isa) {
  check_isa(isa);
  const auto* bits = reinterpret_cast<const uint16_t*>(weight);  // c10::BFloat16 is its 16 bits
  auto kernel = kernels::dot_rows_bf16_portable;
#if defined(__x86_64__)
  if (isa == KernelIsa::kAvx2) kernel = kernels::dot_rows_bf16_avx2;
  if (isa == KernelIsa::kAvx512) kernel = kernels::dot_rows_bf16_avx512;
#endif
  run_rows(kernel, bits, nullptr, x, bias, y, out, in);
}

void matvec_int8(const int8_t* weight, const float* scale, const float* x, const float* bias, float* y, int64_t out,
                 int64_t in, KernelIsa isa) {
  check_isa(isa);
  auto kernel = kernels::dot_rows_int8_portable;
#if defined(__x86_64__)
  if (isa == KernelIsa::kAvx2) kernel = kernels::dot_rows_int8_avx2;
  if (isa == KernelIsa::kAvx512) kernel = kernels::dot_rows_int8_avx512;
#endif
  run_rows(kernel, weight, scale, x, bias, y, out, in);
}

std::pair<torch::Tensor, torch::Tensor> quantize_int8(const torch::Tensor& weight) {
  auto q = torch::empty(weight.sizes(), weight.options().dtype(torch::kChar));
  auto scale = torch::empty({weight.dim() > 0 ? weight.size(0) : 0}, weight.options().dtype(torch::kFloat));
  quantize_int8(weight, q, scale);
  return {q, scale};
}

void quantize_int8(const torch::Tensor& weight, const torch::Tensor& q, const torch::Tensor& scale) {
  if (weight.dim() != 2 || !weight.is_floating_point()) {
    throw Error(fmt::format("quantize_int8: expected a floating-point weight [out, in], got {} of {} dimensions",
                            c10::toString(weight.scalar_type()), weight.dim()));
  }
  const int64_t out = weight.size(0);
  if (!q.sizes().equals(weight.sizes()) || q.scalar_type() != torch::kChar || !scale.sizes().equals({out}) ||
      scale.scalar_type() != torch::kFloat) {
    throw Error("quantize_int8: q must be int8 of the weight's shape, and scale float32 [out]");
  }
  torch::NoGradGuard no_grad;
  // A few rows at a time, so that the float32 temporaries stay small beside the model.
  constexpr int64_t kRows = 1024;
  for (int64_t begin = 0; begin < out; begin += kRows) {
    const int64_t end = std::min(out, begin + kRows);
    const auto w = weight.slice(0, begin, end).to(torch::kFloat);
    auto s = w.abs().amax(1).div_(127.0);
    s.masked_fill_(s == 0, 1.0);
    q.slice(0, begin, end).copy_(torch::round(w / s.unsqueeze(1)).clamp_(-127, 127));
    scale.slice(0, begin, end).copy_(s);
  }
}

}  // namespace llm
