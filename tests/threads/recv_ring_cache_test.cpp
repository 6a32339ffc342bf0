// SPDX-License-Identifier: GPL-2.0
// RecvRingCache on real threads: logins take rings while
// released channels give theirs back, and device removal drains the cache
// while that may still be going on.
//
// Each channel thread takes a ring, writes into it (its receives, as the
// device would), and gives it back. Checked: rings were reused; no ring is
// left once the cache is drained and destroyed and every channel has given
// its ring back (a ring given after the drain is freed at once); and (by
// ThreadSanitizer) no ring is written by two owners without the cache's
// lock ordering them: a ring is either a channel's or the cache's.
//
// SRPT_THREADS_BREAK=ring has one channel write into its ring after giving
// it back, the rule of recv_ring_cache.h broken: it gives it back to the
// drained cache, which frees it, and TSan must report the write into the
// freed ring.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <srpt/core/recv_ring_cache.h>

#include "break_mode.h"
#include "kernel.h"

namespace {

constexpr uint32_t kBuffers = 4;
constexpr uint32_t kBufSize = 64;
constexpr uint32_t kCapacity = 4;
constexpr int kChannels = 4;
constexpr int kLogins = 300;

using srpt::RecvRingCache;

// A channel's receives into its ring.
void receive_into(srpt_k_ring* ring, int id) {
  for (uint32_t b = 0; b < kBuffers; b++)
    kthreads::write_words(srpt_k_ring_buf(ring, b), kBufSize, id);
}

// Logins and releases of one channel after another; two geometries, so
// that a take also finds rings it may not use.
// With `drained` (the break), the first ring is held until the drain is
// done, given back (a draining cache frees it at once) and written again.
void channels(RecvRingCache* cache, int id, const std::atomic<bool>* drained) {
  const RecvRingCache::Geometry g{kBuffers, kBufSize, id % 2 == 0 ? 0u : 68u};
  for (int n = 0; n < kLogins; n++) {
    auto taken = cache->take(g);
    ASSERT_TRUE(taken.ok());
    srpt_k_ring* ring = taken.value();
    receive_into(ring, id);
    const bool broken = drained != nullptr && n == 0;
    while (broken && !drained->load()) std::this_thread::yield();
    cache->give(ring, g);
    if (broken) receive_into(ring, id);
  }
}

TEST(RecvRingCacheThreadsTest, ARingHasOneOwnerAndNoneOutlivesTheDrain) {
  const bool broken = break_mode("ring");
  const size_t rings_before = kthreads::live_rings();
  auto made = RecvRingCache::create(nullptr, kCapacity);
  ASSERT_TRUE(made.ok());
  srpt::Own<RecvRingCache> cache = srpt::move(made).value();

  // Logins and releases, then the same with device removal's drain in the
  // middle of them.
  std::atomic<bool> drained{false};
  for (const bool drain : {false, true}) {
    SCOPED_TRACE(drain ? "with the drain" : "without");
    std::vector<std::thread> threads;
    for (int id = 0; id < kChannels; id++)
      threads.emplace_back(channels, cache.get(), id,
                           broken && drain && id == 0 ? &drained : nullptr);
    if (drain) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      cache->drain();
      drained = true;
    }
    for (std::thread& t : threads) t.join();
    if (!drain) {
      EXPECT_GT(cache->reused(), 0u) << "no take found a ring given back";
    }
  }
  EXPECT_EQ(0u, cache->cached()) << "a drained cache keeps nothing";
  cache.reset();
  EXPECT_EQ(rings_before, kthreads::live_rings());
  EXPECT_EQ(0u, kthreads::bugs());
}

}  // namespace
