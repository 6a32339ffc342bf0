// SPDX-License-Identifier: GPL-2.0
#include "fuzz_case.h"

#include <cstdio>
#include <cstdlib>

#include "../unit/fake/fake.h"

FuzzCase::FuzzCase()
    : reporter_(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS,
                &results_) {}

FuzzCase::~FuzzCase() = default;

void FuzzCase::Finish(const uint8_t* input, size_t size) {
  if (ok()) return;
  std::fprintf(stderr, "fuzz: %d check(s) failed for this input:\n", results_.size());
  for (int i = 0; i < results_.size(); i++) {
    const ::testing::TestPartResult& r = results_.GetTestPartResult(i);
    std::fprintf(stderr, "%s:%d: %s\n", r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.message());
  }
  std::fprintf(stderr, "input (%zu bytes):", size);
  for (size_t i = 0; i < size; i++) std::fprintf(stderr, "%s%02x", i % 32 ? "" : "\n  ", input[i]);
  std::fprintf(stderr, "\ncore log of the input:\n%s", fake::log_dump().c_str());
  std::fprintf(stderr, "ABI calls of the input:\n%s", fake::trace_dump().c_str());
  std::abort();
}

void InitFuzzHarness(int* argc, char*** argv) {
  // gtest would reject libFuzzer's flags: give it none of them.
  int gargc = 1;
  char* gargv[] = {(*argv)[0], nullptr};
  ::testing::InitGoogleTest(&gargc, gargv);
  (void)argc;
}
