// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/idle_cache.h>

#include <srpt/rt/assert.h>
#include <srpt/rt/utility.h>

namespace srpt {

namespace {
constexpr u64 kIdleNs = u64{IdleCache::kIdleMs} * 1000000u;
}  // namespace

Result<Own<IdleCache>> IdleCache::create(u32 capacity, DestroyFn destroy) {
  SRPT_ASSERT(capacity <= kMaxCapacity);
  SpinLock lock = SRPT_TRY(SpinLock::create(SRPT_LOCK_IDLE_CACHE));
  Own<IdleCache> cache =
      SRPT_TRY(make_own<IdleCache>(alloc_sleep, move(lock), capacity, destroy));
  const int ret = srpt_k_work_create(&IdleCache::trim_fn, cache.get(), &cache->trim_work_);
  if (ret) {
    cache->trim_work_ = nullptr;
    return Error::from_kernel(ret);
  }
  return move(cache);
}

IdleCache::~IdleCache() {
  drain();
  srpt_k_work_destroy(trim_work_);
}

void* IdleCache::take(const Key& key) {
  SpinGuard guard(lock_);
  // The newest first: the one most likely still in the CPU's caches.
  for (u32 i = count_; i-- > 0;) {
    if (!(entries_[i].key == key)) continue;
    reused_++;
    return remove_at(i);
  }
  return nullptr;
}

void IdleCache::give(void* item, const Key& key) {
  if (item == nullptr) return;
  {
    SpinGuard guard(lock_);
    if (!draining_ && count_ < capacity_) {
      // The trim work is pending or running whenever an item is held
      // (trim() re-arms for the oldest before it returns): armed here only
      // for the first. Armed for every item, a give() while the work runs
      // queued it kIdleMs from now, and trim()'s re-arm for an older item
      // became a no-op: that item was freed up to kIdleMs late.
      const bool first = count_ == 0;
      entries_[count_++] = Entry{item, key, srpt_k_now_ns()};
      if (first) srpt_k_work_queue_after(trim_work_, kIdleMs);
      return;
    }
  }
  destroy_(item);
}

void IdleCache::drain() {
  {
    SpinGuard guard(lock_);
    draining_ = true;
  }
  // No give() arms the work any more: once cancelled it stays idle.
  if (trim_work_ != nullptr) srpt_k_work_cancel(trim_work_);
  for (;;) {
    void* item;
    {
      SpinGuard guard(lock_);
      if (count_ == 0) return;
      item = remove_at(count_ - 1);
    }
    destroy_(item);
  }
}

u32 IdleCache::cached() {
  SpinGuard guard(lock_);
  return count_;
}

u64 IdleCache::reused() {
  SpinGuard guard(lock_);
  return reused_;
}

void* IdleCache::remove_at(u32 i) {
  void* item = entries_[i].item;
  for (u32 j = i + 1; j < count_; j++) entries_[j - 1] = entries_[j];
  count_--;
  return item;
}

void IdleCache::trim_fn(void* arg) {
  // SAFETY: the cache outlives its trim work: drain() cancels it (and waits
  // for a running one) before the destructor destroys it.
  static_cast<IdleCache*>(arg)->trim();
}

void IdleCache::trim() {
  for (;;) {
    void* item = nullptr;
    {
      SpinGuard guard(lock_);
      if (count_ == 0) return;
      // Read under the lock, as give() stamps its item: no entry is younger
      // than `now`. (Read once before the loop, an item given back while an
      // older one was being destroyed came out younger, its idle time
      // wrapped, and it was freed at once.)
      const u64 now = srpt_k_now_ns();
      // Entries are oldest first: only the first can be due.
      const u64 idle = now - entries_[0].given_ns;
      if (idle < kIdleNs) {
        if (!draining_) {
          const u64 left_ms = (kIdleNs - idle + 999999u) / 1000000u;
          srpt_k_work_queue_after(trim_work_, static_cast<u32>(left_ms));
        }
        return;
      }
      item = remove_at(0);
    }
    destroy_(item);
  }
}

}  // namespace srpt
