// SPDX-License-Identifier: GPL-2.0
// The unit-test binary's entry point.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Death tests re-execute the binary rather than fork a copy of a process
  // that ASan's threads already run in.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  return RUN_ALL_TESTS();
}
