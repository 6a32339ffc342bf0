// SPDX-License-Identifier: GPL-2.0
// IdleCache (include/srpt/core/idle_cache.h) on its own, where its users'
// tests (recv_ring_cache_test, cmd_context_cache_test) cannot reach: what
// the trim work does with an item given back while it runs.
#include <srpt/core/idle_cache.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "../fake/completion.h"
#include "../fake/work.h"
#include "../harness/core_test.h"

namespace {

using srpt::IdleCache;

constexpr uint64_t kMs = 1000000u;
constexpr IdleCache::Key kKey{1, 2, 3};

// What the destroy function saw, and what it does meanwhile.
struct Items {
  std::vector<int*> destroyed;
  // Given back from inside the next destroy call, 1 ms later on the clock:
  // another CPU's release, while the trim work is freeing an item.
  int* give_during_destroy = nullptr;
  IdleCache* cache = nullptr;
};
Items* g_items = nullptr;

void Destroy(void* item) {
  g_items->destroyed.push_back(static_cast<int*>(item));
  if (int* late = std::exchange(g_items->give_during_destroy, nullptr)) {
    fake::advance_ns(kMs);
    g_items->cache->give(late, kKey);
  }
}

class IdleCacheTest : public CoreTest {
 protected:
  void SetUp() override {
    CoreTest::SetUp();
    g_items = &items_;
    srpt::Result<srpt::Own<IdleCache>> made = IdleCache::create(4, &Destroy);
    ASSERT_TRUE(made.ok());
    cache_ = std::move(made).value();
    items_.cache = cache_.get();
  }
  void TearDown() override {
    cache_ = {};  // drains: every item left is destroyed
    g_items = nullptr;
    CoreTest::TearDown();
  }
  bool Destroyed(int* item) const {
    for (int* d : items_.destroyed)
      if (d == item) return true;
    return false;
  }

  Items items_;
  srpt::Own<IdleCache> cache_;
  int a_ = 0, b_ = 0;
};

// The trim work reads the clock once and compares each item's time given
// with it: an item given after that read is younger than "now", and must
// not count as idle (its idle time would wrap below zero).
TEST_F(IdleCacheTest, AnItemGivenBackWhileTheTrimWorkRunsIsKeptItsWholeIdleTime) {
  cache_->give(&a_, kKey);
  items_.give_during_destroy = &b_;
  fake::advance_ns(IdleCache::kIdleMs * kMs);
  fake::run_works();
  ASSERT_TRUE(Destroyed(&a_)) << "idle for kIdleMs: freed";
  EXPECT_FALSE(Destroyed(&b_)) << "given back 1 ms ago: kept";
  EXPECT_EQ(cache_->cached(), Destroyed(&b_) ? 0u : 1u);
  EXPECT_EQ(1u, fake::later_works()) << "the trim work armed for the item kept";

  // The clock stands where b_ was given back.
  fake::advance_ns(IdleCache::kIdleMs * kMs - kMs);
  fake::run_works();
  EXPECT_FALSE(Destroyed(&b_)) << "not before its own kIdleMs";
  fake::advance_ns(kMs);
  fake::run_works();
  EXPECT_TRUE(Destroyed(&b_)) << "then freed";
  EXPECT_EQ(0u, cache_->cached());
}

// An item given back while the trim work runs must not put off the trim of
// an older one: the work is re-armed for the oldest item, not the newest.
TEST_F(IdleCacheTest, AnItemGivenBackWhileTheTrimWorkRunsDoesNotPutOffAnOlderOne) {
  int c = 0;
  cache_->give(&a_, kKey);
  fake::advance_ns(2000 * kMs);
  cache_->give(&c, kKey);
  items_.give_during_destroy = &b_;
  fake::advance_ns(IdleCache::kIdleMs * kMs - 2000 * kMs);
  fake::run_works();
  ASSERT_TRUE(Destroyed(&a_));
  ASSERT_FALSE(Destroyed(&c));
  ASSERT_EQ(2u, cache_->cached());
  // c_ was given back 2 s after a_: due 2 s after it, less the 1 ms that
  // b_'s give moved the clock.
  fake::advance_ns(2000 * kMs - kMs);
  fake::run_works();
  EXPECT_TRUE(Destroyed(&c)) << "freed kIdleMs after it was given back, not kIdleMs after b_";
  EXPECT_FALSE(Destroyed(&b_));
  EXPECT_EQ(1u, cache_->cached());
}

TEST_F(IdleCacheTest, TakeReturnsTheNewestItemOfItsKeyOnly) {
  int c = 0;
  cache_->give(&a_, kKey);
  cache_->give(&b_, IdleCache::Key{9, 9, 9});
  cache_->give(&c, kKey);
  EXPECT_EQ(&c, cache_->take(kKey));
  EXPECT_EQ(&a_, cache_->take(kKey));
  EXPECT_EQ(nullptr, cache_->take(kKey));
  EXPECT_EQ(2u, cache_->reused());
  EXPECT_EQ(1u, cache_->cached());
}

}  // namespace
