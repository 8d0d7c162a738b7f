#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "assertion_count.h"

namespace llm::test {

// Counts the assertions of the running test case, so that a test can skip only before
// its first check (data_or_skip): a skip can never hide a failure.
struct AssertionCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    assertions_in_test_case() = 0;
  }
  void assertionStarting(const Catch::AssertionInfo& info) override {
    TestEventListenerBase::assertionStarting(info);
    ++assertions_in_test_case();
  }
};
CATCH_REGISTER_LISTENER(AssertionCounter)

}  // namespace llm::test
