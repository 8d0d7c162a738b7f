#pragma once

namespace llm::test {

/// Assertions the running test case has made so far (counted by test_main.cpp).
inline int& assertions_in_test_case() {
  static int count = 0;
  return count;
}

}  // namespace llm::test
