// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/recv_ring_cache.h>

#include <srpt/rt/assert.h>
#include <srpt/rt/utility.h>

namespace srpt {

namespace {
constexpr u64 kIdleNs = u64{RecvRingCache::kIdleMs} * 1000000u;
}  // namespace

Result<Own<RecvRingCache>> RecvRingCache::create(srpt_k_device* kdev, u32 capacity) {
  SRPT_ASSERT(capacity <= kMaxCapacity);
  SpinLock lock = SRPT_TRY(SpinLock::create(SRPT_LOCK_RING_CACHE));
  Own<RecvRingCache> cache =
      SRPT_TRY(make_own<RecvRingCache>(alloc_sleep, move(lock), kdev, capacity));
  const int ret = srpt_k_work_create(&RecvRingCache::trim_fn, cache.get(), &cache->trim_work_);
  if (ret) {
    cache->trim_work_ = nullptr;
    return Error::from_kernel(ret);
  }
  return move(cache);
}

RecvRingCache::~RecvRingCache() {
  drain();
  srpt_k_work_destroy(trim_work_);
}

Result<srpt_k_ring*> RecvRingCache::take(const Geometry& g) {
  {
    SpinGuard guard(lock_);
    // The newest first: the one most likely still in the CPU's caches.
    for (u32 i = count_; i-- > 0;) {
      if (!(entries_[i].geometry == g)) continue;
      reused_++;
      return remove_at(i);
    }
  }
  srpt_k_ring* ring = nullptr;
  const int ret = srpt_k_ring_create(kdev_, g.count, g.size, g.align_at, SRPT_RING_RECV, &ring);
  if (ret) return Error::from_kernel(ret);
  return ring;
}

void RecvRingCache::give(srpt_k_ring* ring, const Geometry& g) {
  if (ring == nullptr) return;
  {
    SpinGuard guard(lock_);
    if (!draining_ && count_ < capacity_) {
      entries_[count_++] = Entry{ring, g, srpt_k_now_ns()};
      // A no-op while the trim work is pending; a running one re-arms for
      // this ring when it finds it (trim()).
      srpt_k_work_queue_after(trim_work_, kIdleMs);
      return;
    }
  }
  srpt_k_ring_destroy(ring);
}

void RecvRingCache::drain() {
  {
    SpinGuard guard(lock_);
    draining_ = true;
  }
  // No give() arms the work any more: once cancelled it stays idle.
  if (trim_work_ != nullptr) srpt_k_work_cancel(trim_work_);
  for (;;) {
    srpt_k_ring* ring;
    {
      SpinGuard guard(lock_);
      if (count_ == 0) return;
      ring = remove_at(count_ - 1);
    }
    srpt_k_ring_destroy(ring);
  }
}

u32 RecvRingCache::cached() {
  SpinGuard guard(lock_);
  return count_;
}

u64 RecvRingCache::reused() {
  SpinGuard guard(lock_);
  return reused_;
}

srpt_k_ring* RecvRingCache::remove_at(u32 i) {
  srpt_k_ring* ring = entries_[i].ring;
  for (u32 j = i + 1; j < count_; j++) entries_[j - 1] = entries_[j];
  count_--;
  return ring;
}

void RecvRingCache::trim_fn(void* arg) {
  // SAFETY: the cache outlives its trim work: drain() cancels it (and waits
  // for a running one) before the destructor destroys it.
  static_cast<RecvRingCache*>(arg)->trim();
}

void RecvRingCache::trim() {
  const u64 now = srpt_k_now_ns();
  for (;;) {
    srpt_k_ring* ring = nullptr;
    {
      SpinGuard guard(lock_);
      if (count_ == 0) return;
      // Entries are oldest first: only the first can be due.
      const u64 idle = now - entries_[0].given_ns;
      if (idle < kIdleNs) {
        if (!draining_) {
          const u64 left_ms = (kIdleNs - idle + 999999u) / 1000000u;
          srpt_k_work_queue_after(trim_work_, static_cast<u32>(left_ms));
        }
        return;
      }
      ring = remove_at(0);
    }
    srpt_k_ring_destroy(ring);
  }
}

}  // namespace srpt
