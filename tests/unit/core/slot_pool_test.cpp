// SPDX-License-Identifier: GPL-2.0
// SlotPool (include/srpt/core/slot_pool.h) on its own.
#include <srpt/core/slot_pool.h>

#include "../harness/core_test.h"

namespace {

struct Slot {
  int id;
  srpt::ListNode node;
};
using Pool = srpt::SlotPool<Slot, &Slot::node>;

class SlotPoolTest : public CoreTest {};

TEST_F(SlotPoolTest, SlotsAreTakenOldestFreeFirstAndCountedBusy) {
  Slot a{1, {}}, b{2, {}};
  Pool p;
  p.add(a);
  p.add(b);
  EXPECT_EQ(&a, p.take());
  EXPECT_EQ(1u, p.busy());
  EXPECT_EQ(&b, p.take());
  EXPECT_EQ(nullptr, p.take()) << "all busy: the request waits";
  EXPECT_EQ(2u, p.busy());
  p.put(a);
  EXPECT_EQ(1u, p.busy());
  EXPECT_EQ(&a, p.take());
  p.put(b);
  p.put(a);
  EXPECT_EQ(0u, p.busy());
}

TEST_F(SlotPoolTest, PuttingBackMoreThanWasTakenIsABug) {
  Slot a{1, {}};
  Pool p;
  p.add(a);
  Slot* s = p.take();
  ASSERT_EQ(&a, s);
  p.put(a);
  p.put(a);
  ExpectOneBugReport("busy_ > 0");
  EXPECT_EQ(0u, p.busy());
}

}  // namespace
