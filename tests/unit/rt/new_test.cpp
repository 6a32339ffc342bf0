// SPDX-License-Identifier: GPL-2.0
// Allocation with an explicit context (include/srpt/rt/new.h).
#include <srpt/rt/new.h>

#include "../harness/core_test.h"

namespace {

class NewTest : public CoreTest {};

struct Probe {
  static int constructed;
  static int destroyed;
  int a;
  long b[4];
  Probe() : a(7) { constructed++; }
  ~Probe() { destroyed++; }
  static void reset_counts() { constructed = destroyed = 0; }
};
int Probe::constructed = 0;
int Probe::destroyed = 0;

// No constructor: shows the memory srpt_kzalloc returns is zeroed.
struct Plain {
  int a;
  long b[4];
};

}  // namespace

TEST_F(NewTest, AllocatesConstructsAndDestroys) {
  Probe::reset_counts();
  Probe* p = new (srpt::alloc_sleep) Probe;
  ASSERT_NE(nullptr, p);
  EXPECT_EQ(7, p->a);
  EXPECT_EQ(1, Probe::constructed);
  EXPECT_EQ(1u, fake::live_allocations());
  EXPECT_EQ(sizeof(Probe), fake::live_bytes());
  EXPECT_EQ(1u, fake::sleeping_allocations());
  srpt::destroy(p);
  EXPECT_EQ(1, Probe::destroyed);
  EXPECT_EQ(0u, fake::live_allocations());
}

TEST_F(NewTest, MemoryIsZeroed) {
  Plain* p = new (srpt::alloc_atomic) Plain;
  ASSERT_NE(nullptr, p);
  EXPECT_EQ(0, p->a);
  for (long v : p->b) EXPECT_EQ(0, v);
  EXPECT_EQ(1u, fake::atomic_allocations());
  srpt::destroy(p);
}

TEST_F(NewTest, InjectedFailureYieldsNullAndNoConstructor) {
  Probe::reset_counts();
  fake::fail_nth_allocation(0);
  Probe* p = new (srpt::alloc_sleep) Probe;
  EXPECT_EQ(nullptr, p);
  EXPECT_EQ(0, Probe::constructed);
  EXPECT_EQ(1u, fake::injected_failure_count());
  EXPECT_EQ(0u, fake::live_allocations());

  fake::fail_nth_allocation(0);
  Probe* q = new (srpt::alloc_atomic) Probe;
  EXPECT_EQ(nullptr, q);
  EXPECT_EQ(0, Probe::constructed);
}

TEST_F(NewTest, FailureInjectionCountsAttempts) {
  fake::fail_nth_allocation(1);
  Plain* first = new (srpt::alloc_sleep) Plain;
  Plain* second = new (srpt::alloc_sleep) Plain;
  Plain* third = new (srpt::alloc_sleep) Plain;
  EXPECT_NE(nullptr, first);
  EXPECT_EQ(nullptr, second);
  EXPECT_NE(nullptr, third);
  EXPECT_EQ(3u, fake::allocation_attempts());
  EXPECT_EQ(1u, fake::injected_failure_count());
  srpt::destroy(first);
  srpt::destroy(third);
}

TEST_F(NewTest, FailAllFromN) {
  fake::fail_allocations_from(1);
  Plain* first = new (srpt::alloc_sleep) Plain;
  Plain* second = new (srpt::alloc_sleep) Plain;
  Plain* third = new (srpt::alloc_sleep) Plain;
  EXPECT_NE(nullptr, first);
  EXPECT_EQ(nullptr, second);
  EXPECT_EQ(nullptr, third);
  EXPECT_EQ(2u, fake::injected_failure_count());
  fake::disarm_allocation_failures();
  Plain* fourth = new (srpt::alloc_sleep) Plain;
  EXPECT_NE(nullptr, fourth);
  srpt::destroy(first);
  srpt::destroy(fourth);
}

TEST_F(NewTest, ArrayFormAndDestroyArray) {
  uint32_t* arr = new (srpt::alloc_sleep) uint32_t[16];
  ASSERT_NE(nullptr, arr);
  EXPECT_EQ(16 * sizeof(uint32_t), fake::live_bytes());
  for (int i = 0; i < 16; i++) EXPECT_EQ(0u, arr[i]);
  srpt::destroy_array(arr);
  EXPECT_EQ(0u, fake::live_allocations());

  fake::fail_nth_allocation(0);
  EXPECT_EQ(nullptr, new (srpt::alloc_sleep) uint32_t[16]);
}

TEST_F(NewTest, DestroyNullIsANoOp) {
  srpt::destroy(static_cast<Probe*>(nullptr));
  srpt::destroy_array(static_cast<uint32_t*>(nullptr));
  EXPECT_EQ(0u, fake::allocation_attempts());
}
