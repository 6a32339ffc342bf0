// SPDX-License-Identifier: GPL-2.0
#include "core_test.h"

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "  " + s + "\n";
  return out;
}

std::string join(const std::vector<fake::BugReport>& v) {
  std::string out;
  for (const fake::BugReport& r : v) out += "  " + r.str() + "\n";
  return out;
}

}  // namespace

void CoreTest::SetUp() { fake::reset(); }

void CoreTest::TearDown() {
  fake::disarm_allocation_failures();
  EXPECT_EQ(0u, fake::live_allocations())
      << "leaked " << fake::live_allocations() << " srpt_kzalloc() blocks ("
      << fake::live_bytes() << " bytes)";
  EXPECT_EQ(0u, fake::live_mutexes()) << "leaked mutexes";
  EXPECT_EQ(0u, fake::held_mutexes()) << "a lock is still held";
  EXPECT_EQ(0u, fake::held_spinlocks()) << "a spinlock is still held";
  const std::vector<std::string> leaks = fake::leaks();
  EXPECT_TRUE(leaks.empty()) << "leaked kernel objects:\n" << join(leaks);
  const std::vector<fake::BugReport> bugs = fake::take_bug_reports();
  EXPECT_TRUE(bugs.empty()) << "unexpected bug reports:\n" << join(bugs);
  const std::vector<std::string> violations = fake::take_violations();
  EXPECT_TRUE(violations.empty())
      << "the fake shim saw contract violations:\n" << join(violations);
  if (HasFailure()) {
    ::testing::Test::RecordProperty("srpt_log", fake::log_dump());
    std::fprintf(stderr, "core log of the failed test:\n%s",
                 fake::log_dump().c_str());
    std::fprintf(stderr, "ABI calls of the failed test:\n%s",
                 fake::trace_dump().c_str());
  }
}

std::vector<fake::BugReport> CoreTest::TakeBugReports() {
  return fake::take_bug_reports();
}

void CoreTest::ExpectOneBugReport(const std::string& expr) {
  const std::vector<fake::BugReport> bugs = fake::take_bug_reports();
  ASSERT_EQ(1u, bugs.size()) << "bug reports:\n" << join(bugs);
  EXPECT_NE(std::string::npos, bugs[0].expr.find(expr))
      << "expected a report about \"" << expr << "\", got " << bugs[0].str();
}

void CoreTest::ExpectOneViolation(const std::string& what) {
  const std::vector<std::string> v = fake::take_violations();
  ASSERT_EQ(1u, v.size()) << "violations:\n" << join(v);
  EXPECT_NE(std::string::npos, v[0].find(what))
      << "expected a violation about \"" << what << "\", got " << v[0];
}
