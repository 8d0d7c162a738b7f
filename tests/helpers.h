#pragma once

#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "test_case.h"
#include "llm/util/files.h"

namespace llm::test {

/// The exit status that ctest reports as "skipped" (SKIP_RETURN_CODE, cmake/llm.cmake).
constexpr int kSkipped = 77;

/// The fetched data file `name`. When it is missing the test case ends as skipped:
/// ctest runs each case in its own process, and this one exits with kSkipped. A skip
/// is allowed only before the case's first check, so that it can never hide a
/// failure; a case that asks for data after a check fails instead.
inline std::filesystem::path data_or_skip(const std::string& name) {
  auto path = data_file(name);
  if (std::filesystem::exists(path)) return path;
  if (assertions_in_test_case() > 0) {
    FAIL("test bug: " << path.string() << " is missing, and the test asked for it after "
                      << assertions_in_test_case() << " checks; ask for data before the first check");
  }
  std::cout << "skipped: " << path.string() << " is missing; run scripts/fetch-data.sh" << std::endl;
  std::exit(kSkipped);
}

/// The tokenizer goldens' hash of a token sequence: FNV-1a 64 over each id as 4
/// little-endian bytes (scripts/reference/tokenizer_cases.mjs).
inline std::string fnv1a64_of_ids(const std::vector<int64_t>& ids) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const int64_t id : ids) {
    for (int k = 0; k < 4; ++k) {
      h ^= (static_cast<uint64_t>(id) >> (8 * k)) & 0xFF;
      h *= 0x100000001b3ULL;
    }
  }
  return fmt::format("{:016x}", h);
}

/// A file of tests/golden/ (the tests run from the project root).
inline std::filesystem::path golden(const std::string& name) { return std::filesystem::path("tests/golden") / name; }

/// A fresh, empty folder for one test's files, removed when the test case passes.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("llm-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  scratch_of_test_case().push_back(dir);
  return dir;
}

}  // namespace llm::test

namespace llm::test {

/// True when `bytes` is not whole UTF-8 characters (it starts or ends inside one).
inline bool is_partial_utf8(const std::string& bytes) {
  try {
    llm::check_utf8(bytes, "token");
    return false;
  } catch (const std::exception&) {
    return true;
  }
}

}  // namespace llm::test

namespace llm::test {

/// How far a computed float may be from its reference, element by element, as in
/// torch.allclose: |actual - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double atol;
  double rtol;
};

/// The tolerances, one per kind of quantity, written down once here (and once in
/// scripts/reference/compare.py). Another CPU's BLAS kernels round float32 sums in
/// another order, so results differ in the last bits between machines: up to about
/// 5e-7 relative on gradients of magnitude 30 (docs/testing.md). Each tolerance
/// leaves a wide margin over that and still fails when one weight moves by 1e-3
/// (tested in test-model.cpp).
namespace tolerance {
/// Forward results compared with PyTorch: activations, logits, attention weights.
inline constexpr Tolerance kForward{/*atol=*/1e-5, /*rtol=*/1e-5};
/// Gradients compared with PyTorch: sums over the batch and the tokens.
inline constexpr Tolerance kGradient{/*atol=*/1e-5, /*rtol=*/1e-4};
/// Losses after training steps: each step's rounding carries into the next.
inline constexpr Tolerance kTraining{/*atol=*/1e-5, /*rtol=*/1e-5};
/// Two ways of computing the same thing in this project, on this machine (fused vs
/// unfused, cached vs uncached, matrix-vector vs matrix-matrix).
inline constexpr Tolerance kSameMath{/*atol=*/1e-6, /*rtol=*/1e-5};
/// A learning-rate schedule, computed in double by both sides.
inline constexpr Tolerance kSchedule{/*atol=*/1e-12, /*rtol=*/1e-12};
/// AdamW against LibTorch's AdamW: parameters, then the two moments, whose sizes
/// are those of a gradient and of its square.
inline constexpr Tolerance kAdamWParameters{/*atol=*/1e-6, /*rtol=*/1e-5};
inline constexpr Tolerance kAdamWMoment1{/*atol=*/1e-7, /*rtol=*/1e-5};
inline constexpr Tolerance kAdamWMoment2{/*atol=*/1e-9, /*rtol=*/1e-5};
/// bfloat16 results (the course's dtype for Llama 3.2, Qwen3 and Gemma 3) compared with
/// PyTorch's: a float32 difference in the last bit can round one bfloat16 step
/// (2^-8 relative) the other way.
inline constexpr Tolerance kBFloat16{/*atol=*/1e-2, /*rtol=*/1e-2};
/// A number the lesson prints with 4 decimals: one unit of the last decimal.
inline constexpr Tolerance kPrinted{/*atol=*/1e-4, /*rtol=*/0};
}  // namespace tolerance

/// How `actual` compares with `expected` under a tolerance.
struct Closeness {
  bool ok;          ///< every element within atol + rtol * |expected| (NaN never is)
  double max_diff;  ///< the largest |actual - expected|
  double worst;     ///< the largest |actual - expected| / (atol + rtol * |expected|)
};

inline Closeness closeness(const torch::Tensor& actual, const torch::Tensor& expected, Tolerance tol) {
  if (actual.numel() == 0) return {true, 0.0, 0.0};
  const auto a = actual.detach().to(torch::kCPU, torch::kDouble);
  const auto b = expected.detach().to(torch::kCPU, torch::kDouble);
  const auto diff = (a - b).abs();
  const auto allowed = tol.atol + tol.rtol * b.abs();
  const bool ok = (diff <= allowed).all().item<bool>();
  return {ok, diff.max().item<double>(), (diff / allowed).max().item<double>()};
}

/// Checks that `actual` is close to `expected` (same shape, every element within the
/// tolerance), printing the largest difference either way, as llm.c's check_tensor
/// does.
inline void check_close(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& name,
                        Tolerance tol) {
  INFO(name);
  REQUIRE(actual.sizes() == expected.sizes());
  const auto c = closeness(actual, expected, tol);
  UNSCOPED_INFO(name << ": max |diff| " << c.max_diff << ", " << c.worst << " of the allowed (atol " << tol.atol
                     << " + rtol " << tol.rtol << " * |expected|)" << (c.ok ? " OK" : " NOT OK"));
  CHECK(c.ok);
}

}  // namespace llm::test
