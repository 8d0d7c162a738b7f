#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "test_case.h"

namespace llm::test {

// Counts the assertions of the running test case, so that a test can skip only before
// its first check (data_or_skip): a skip can never hide a failure. When the case passes,
// the folders it made (temp_dir) go, so that the suite's files do not pile up on the disk.
struct TestCaseListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    assertions_in_test_case() = 0;
    scratch_of_test_case().clear();
  }
  void assertionStarting(const Catch::AssertionInfo& info) override {
    TestEventListenerBase::assertionStarting(info);
    ++assertions_in_test_case();
  }
  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    TestEventListenerBase::testCaseEnded(stats);
    if (stats.totals.assertions.failed != 0) return;
    for (const auto& folder : scratch_of_test_case()) {
      std::error_code ignored;  // a folder that cannot go is only left behind
      std::filesystem::remove_all(folder, ignored);
    }
  }
};
CATCH_REGISTER_LISTENER(TestCaseListener)

}  // namespace llm::test
