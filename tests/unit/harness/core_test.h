// SPDX-License-Identifier: GPL-2.0
// CoreTest: the base fixture of every unit test.
//
// SetUp resets the fake shim. TearDown fails the test when it ends with
//   - live srpt_kzalloc() blocks or live mutexes (a leak),
//   - live kernel objects of the login path: spinlocks, rings, QPs, command
//     contexts, work items (or queued work never run), completions,
//     sessions, listeners, or a cm_id nobody destroyed (fake::leaks()),
//   - a lock still held,
//   - bug reports (srpt_report_bug) the test did not take,
//   - contract violations the fake detected (tests/unit/fake/violation.h),
// and disarms any allocation failure still armed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fake/fake.h"

class CoreTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Takes the bug reports made so far: the test expected them.
  std::vector<fake::BugReport> TakeBugReports();
  // Exactly one bug report was made since the last take, and its expression
  // contains `expr`.
  void ExpectOneBugReport(const std::string& expr);
  // Exactly one violation was recorded since the last take, containing `what`.
  void ExpectOneViolation(const std::string& what);
};
