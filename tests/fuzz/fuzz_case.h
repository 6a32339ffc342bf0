// SPDX-License-Identifier: GPL-2.0
// FuzzCase: one libFuzzer input run through the unit tests' fixtures
// (tests/unit/harness/), with their checks as the fuzzer's oracle.
//
// The fixtures check with gtest assertions (EXPECT_*, ASSERT_*,
// ADD_FAILURE). Outside a gtest run those would only be printed, so a
// FuzzCase intercepts every assertion failure made while it lives and
// Finish() turns any of them into abort() (a crash libFuzzer reports and
// saves the input of), after printing the failures, the core's log and the
// ABI trace of the input. The fixture's SetUp and TearDown run for every
// input: each input starts from a reset fake kernel and ends with the full
// teardown, whose checks (no leaked allocation or kernel object, no lock
// held, no bug report, no contract violation, THE OWNERSHIP RULE for every
// cm_id) apply to every input.
#pragma once

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

class FuzzCase {
 public:
  FuzzCase();
  ~FuzzCase();
  FuzzCase(const FuzzCase&) = delete;
  FuzzCase& operator=(const FuzzCase&) = delete;

  // No assertion failed so far.
  bool ok() const { return results_.size() == 0; }
  // Aborts the process when any assertion failed; `input` is printed in hex.
  void Finish(const uint8_t* input, size_t size);

 private:
  ::testing::TestPartResultArray results_;
  ::testing::ScopedFakeTestPartResultReporter reporter_;
};

// Exposes a harness fixture's SetUp/TearDown to a fuzz target. `Fixture`
// is a LoginTest or one derived from it.
template <class Fixture>
class FuzzFixture : public Fixture {
 public:
  void Up() { this->SetUp(); }
  void Down() { this->TearDown(); }
  void TestBody() override {}
};

// Called once from LLVMFuzzerInitialize: gtest's own set-up, so its
// assertion macros can be used outside RUN_ALL_TESTS().
void InitFuzzHarness(int* argc, char*** argv);

// One fuzz input through `Fixture`: full set-up, Run(data, size), full
// teardown; every failed check on the way aborts with the input reported.
template <class Fixture>
int RunFuzzCase(const uint8_t* data, size_t size) {
  FuzzCase fc;
  {
    FuzzFixture<Fixture> t;
    t.Up();
    if (fc.ok()) t.Run(data, size);
    t.Down();
  }
  fc.Finish(data, size);
  return 0;
}
