// SPDX-License-Identifier: GPL-2.0
// DispatchGate (include/srpt/core/dispatch_gate.h): closing refuses new
// entries and waits, on another kernel thread, for the last one inside.
#include <srpt/core/dispatch_gate.h>

#include <utility>

#include "../harness/core_test.h"

namespace {

class DispatchGateTest : public CoreTest {
 protected:
  static srpt::DispatchGate Make() {
    srpt::Result<srpt::DispatchGate> made = srpt::DispatchGate::create();
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
};

TEST_F(DispatchGateTest, AClosedGateRefusesEntries) {
  srpt::DispatchGate g = Make();
  ASSERT_TRUE(g.enter());
  g.leave();
  g.close_and_wait();  // nobody inside: returns at once
  EXPECT_FALSE(g.enter());
  EXPECT_EQ(0u, g.inside());
  EXPECT_EQ(0u, fake::count_calls("srpt_k_wait"));
}

TEST_F(DispatchGateTest, ClosingWaitsForTheLastOneInside) {
  srpt::DispatchGate g = Make();
  ASSERT_TRUE(g.enter());
  ASSERT_TRUE(g.enter());
  bool closed = false;
  const int closer = fake::spawn_thread([&] {
    g.close_and_wait();
    closed = true;
  });
  EXPECT_FALSE(closed) << "two dispatches inside";
  EXPECT_FALSE(g.enter()) << "closed to new ones while it waits";
  g.leave();
  EXPECT_EQ(1u, fake::run_threads());
  EXPECT_FALSE(closed) << "one still inside";
  g.leave();
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(closed);
  EXPECT_TRUE(fake::thread_finished(closer));
}

}  // namespace
