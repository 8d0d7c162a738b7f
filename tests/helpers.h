#pragma once

#include <catch2/catch.hpp>
#include <torch/torch.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "llm/util/files.h"

namespace llm::test {

/// The fetched data file `name`, or nullopt after printing the marker that makes
/// ctest report the test as skipped (never as passed).
inline std::optional<std::filesystem::path> data_or_skip(const std::string& name) {
  auto path = data_file(name);
  if (std::filesystem::exists(path)) return path;
  std::cout << "LLM-SKIP: " << path.string() << " is missing; run scripts/fetch-data.sh" << std::endl;
  WARN("skipped: " << path.string() << " is missing");
  return std::nullopt;
}

/// A file of tests/golden/ (the tests run from the project root).
inline std::filesystem::path golden(const std::string& name) { return std::filesystem::path("tests/golden") / name; }

/// A fresh, empty folder for one test's files.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("llm-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
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

/// Checks that `actual` equals `expected` within `tol` (absolute), printing the
/// largest difference either way, as llm.c's check_tensor does.
inline void check_close(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& name,
                        double tol = 1e-5) {
  INFO(name);
  REQUIRE(actual.sizes() == expected.sizes());
  const double diff =
      actual.numel() == 0 ? 0.0 : (actual.detach().to(torch::kDouble) - expected.to(torch::kDouble)).abs().max().item<double>();
  UNSCOPED_INFO(name << ": max |diff| " << diff << (diff <= tol ? " OK" : " NOT OK"));
  CHECK(diff <= tol);
}

}  // namespace llm::test

