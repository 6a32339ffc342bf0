// SPDX-License-Identifier: GPL-2.0
// Self-tests of the fake shim: the leak, lock and contract checks every other
// test relies on must actually fire.
#include <srpt/abi/alloc.h>
#include <srpt/abi/lock.h>
#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

#include "../harness/core_test.h"

namespace {

class FakeTest : public CoreTest {};

}  // namespace

TEST_F(FakeTest, CountsLiveBlocksAndBytes) {
  void* a = srpt_kzalloc(10, SRPT_ALLOC_SLEEP);
  void* b = srpt_kzalloc(32, SRPT_ALLOC_ATOMIC);
  ASSERT_NE(nullptr, a);
  ASSERT_NE(nullptr, b);
  EXPECT_EQ(2u, fake::live_allocations());
  EXPECT_EQ(42u, fake::live_bytes());
  srpt_kfree(a);
  EXPECT_EQ(1u, fake::live_allocations());
  EXPECT_EQ(32u, fake::live_bytes());
  srpt_kfree(b);
  srpt_kfree(nullptr);
  EXPECT_EQ(0u, fake::live_allocations());
  EXPECT_EQ(0u, fake::live_bytes());
}

TEST_F(FakeTest, ZeroSizeIsNullAndNoAttempt) {
  EXPECT_EQ(nullptr, srpt_kzalloc(0, SRPT_ALLOC_SLEEP));
  EXPECT_EQ(0u, fake::allocation_attempts());
}

TEST_F(FakeTest, FreeingAnUnknownPointerIsAViolation) {
  int on_stack = 0;
  srpt_kfree(&on_stack);
  ExpectOneViolation("not a live srpt_kzalloc() block");
}

TEST_F(FakeTest, DoubleFreeIsAViolation) {
  void* p = srpt_kzalloc(8, SRPT_ALLOC_SLEEP);
  srpt_kfree(p);
  srpt_kfree(p);
  ExpectOneViolation("not a live srpt_kzalloc() block");
}

TEST_F(FakeTest, MutexCreateFailsAsAnAllocation) {
  fake::fail_nth_allocation(1);
  void* block = srpt_kzalloc(8, SRPT_ALLOC_SLEEP);
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  EXPECT_NE(nullptr, block);
  EXPECT_EQ(nullptr, m);
  EXPECT_EQ(0u, fake::live_mutexes());
  srpt_kfree(block);
}

TEST_F(FakeTest, DoubleLockIsAViolation) {
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  ASSERT_NE(nullptr, m);
  srpt_mutex_lock(m);
  srpt_mutex_lock(m);
  ExpectOneViolation("already locked");
  EXPECT_TRUE(fake::mutex_held(m));
  srpt_mutex_unlock(m);
  EXPECT_FALSE(fake::mutex_held(m));
  srpt_mutex_destroy(m);
}

TEST_F(FakeTest, UnlockWhenNotLockedIsAViolation) {
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  ASSERT_NE(nullptr, m);
  srpt_mutex_unlock(m);
  ExpectOneViolation("not locked");
  srpt_mutex_destroy(m);
}

TEST_F(FakeTest, DestroyWhileLockedIsAViolation) {
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  ASSERT_NE(nullptr, m);
  srpt_mutex_lock(m);
  srpt_mutex_destroy(m);
  ExpectOneViolation("mutex is locked");
  EXPECT_EQ(0u, fake::live_mutexes());
  EXPECT_EQ(0u, fake::held_mutexes());
}

TEST_F(FakeTest, LockOrderFollowsTheClassList) {
  srpt_mutex* target = srpt_mutex_create(SRPT_LOCK_TARGET);
  srpt_mutex* port = srpt_mutex_create(SRPT_LOCK_PORT);
  srpt_mutex* port2 = srpt_mutex_create(SRPT_LOCK_PORT);
  srpt_mutex_lock(target);
  srpt_mutex_lock(port);  // TARGET then PORT: the documented order
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_mutex_lock(port2);  // two of one class nest
  ExpectOneViolation("while holding class 1");
  srpt_mutex_unlock(port2);
  srpt_mutex_unlock(port);
  srpt_mutex_unlock(target);
  srpt_mutex_lock(port);
  srpt_mutex_lock(target);  // inverted
  ExpectOneViolation("class 0 taken while holding class 1");
  srpt_mutex_unlock(target);
  srpt_mutex_unlock(port);
  srpt_mutex_destroy(port2);
  srpt_mutex_destroy(port);
  srpt_mutex_destroy(target);
}

TEST_F(FakeTest, LogCapturesLevelAndText) {
  srpt_log(SRPT_LOG_ERR, "bad %s=%d\n", "param", 3);
  srpt_log(SRPT_LOG_WARNING, "peer %u\n", 7u);
  ASSERT_EQ(2u, fake::log_lines().size());
  EXPECT_EQ(SRPT_LOG_ERR, fake::log_lines()[0].level);
  EXPECT_EQ("bad param=3\n", fake::log_lines()[0].text);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "peer 7"));
  EXPECT_FALSE(fake::logged(SRPT_LOG_ERR, "peer 7"));
}

TEST_F(FakeTest, PrintkIncompatibleFormatIsAViolation) {
  EXPECT_TRUE(fake::printk_compatible_format("%s %d %u %x %llx %llu %lld %zu %c %%"));
  EXPECT_TRUE(fake::printk_compatible_format("%.*s %016llx %-4d %*u"));
  EXPECT_FALSE(fake::printk_compatible_format("%p"));
  EXPECT_FALSE(fake::printk_compatible_format("%pV"));
  EXPECT_FALSE(fake::printk_compatible_format("%n"));
  EXPECT_FALSE(fake::printk_compatible_format("%f"));
  EXPECT_FALSE(fake::printk_compatible_format("%ls"));
  EXPECT_FALSE(fake::printk_compatible_format("trailing %"));
  int x = 0;
  srpt_log(SRPT_LOG_INFO, "%p\n", static_cast<void*>(&x));
  ExpectOneViolation("not printk-compatible");
}

TEST_F(FakeTest, SnprintfTruncatesAndTerminates) {
  char buf[6];
  EXPECT_EQ(11, srpt_snprintf(buf, sizeof(buf), "%s-%d", "hello", 12345));
  EXPECT_STREQ("hello", buf);
}

TEST_F(FakeTest, ReportBugRecordsFileLineAndExpression) {
  const int line = __LINE__ + 1;
  const bool failed = SRPT_CHECK_FAILED(1 + 1 == 3);
  EXPECT_TRUE(failed);
  EXPECT_FALSE(SRPT_CHECK_FAILED(1 + 1 == 2));
  const std::vector<fake::BugReport> bugs = TakeBugReports();
  ASSERT_EQ(1u, bugs.size());
  EXPECT_EQ(line, bugs[0].line);
  EXPECT_EQ("1 + 1 == 3", bugs[0].expr);
  EXPECT_NE(std::string::npos, bugs[0].file.find("fake_test.cpp"));
}

TEST_F(FakeTest, PureVirtualCallAborts) {
  EXPECT_DEATH(srpt_trap_pure_virtual(), "pure virtual function called");
}
