#pragma once

// What the running test case has done so far: its checks and its scratch folders.

#include <filesystem>
#include <vector>

namespace llm::test {

/// Assertions the running test case has made so far (counted by test_main.cpp).
inline int& assertions_in_test_case() {
  static int count = 0;
  return count;
}

/// The folders the running test case made with temp_dir: test_main.cpp removes them when
/// the case passes (a failed case keeps its files to look at).
inline std::vector<std::filesystem::path>& scratch_of_test_case() {
  static std::vector<std::filesystem::path> folders;
  return folders;
}

}  // namespace llm::test
