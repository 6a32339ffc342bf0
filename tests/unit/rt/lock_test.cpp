// SPDX-License-Identifier: GPL-2.0
// Mutex and MutexGuard (include/srpt/rt/lock.h) over the fake kernel mutex.
#include <srpt/rt/lock.h>

#include <utility>

#include "../harness/core_test.h"

using srpt::Mutex;
using srpt::MutexGuard;

namespace {

class LockTest : public CoreTest {
 protected:
  static Mutex make_mutex() {
    srpt::Result<Mutex> m = Mutex::create(SRPT_LOCK_TEST);
    EXPECT_TRUE(m.ok());
    return std::move(m).value();
  }
};

}  // namespace

TEST_F(LockTest, CreateAndDestroy) {
  {
    Mutex m = make_mutex();
    EXPECT_EQ(1u, fake::live_mutexes());
    EXPECT_FALSE(m.is_locked());
  }
  EXPECT_EQ(0u, fake::live_mutexes());
}

TEST_F(LockTest, CreateFailsUnderInjectedAllocationFailure) {
  fake::fail_nth_allocation(0);
  srpt::Result<Mutex> m = Mutex::create(SRPT_LOCK_TEST);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(srpt::Error::NoMem, m.error().code());
  EXPECT_EQ(1u, fake::injected_failure_count());
  EXPECT_EQ(0u, fake::live_mutexes());
}

TEST_F(LockTest, GuardHoldsTheLockForItsScope) {
  Mutex m = make_mutex();
  {
    MutexGuard guard(m);
    EXPECT_TRUE(m.is_locked());
    EXPECT_EQ(1u, fake::held_mutexes());
  }
  EXPECT_FALSE(m.is_locked());
  EXPECT_EQ(0u, fake::held_mutexes());
  {
    MutexGuard again(m);  // and can be taken again
    EXPECT_TRUE(m.is_locked());
  }
  EXPECT_FALSE(m.is_locked());
}

TEST_F(LockTest, MovedMutexKeepsTheKernelObject) {
  Mutex a = make_mutex();
  Mutex b = std::move(a);  // a now holds nothing; destroying it is a no-op
  EXPECT_EQ(1u, fake::live_mutexes());
  {
    MutexGuard guard(b);
    EXPECT_TRUE(b.is_locked());
  }
}
