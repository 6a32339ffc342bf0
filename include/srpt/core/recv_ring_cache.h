// SPDX-License-Identifier: GPL-2.0
// RecvRingCache: the receive rings of released channels, kept by their
// device for the next logins. Making a ring (64 buffers of about 8 KiB,
// allocated, zeroed and DMA-mapped) is the largest step of a login
// (issue 17); a login that finds a ring of its geometry here skips it.
//
// Bounds: at most `capacity` rings (module parameter recv_ring_cache; 0
// keeps none), and a ring not taken again within kIdleMs of its channel's
// release is freed by the trim work: an idle target holds no cached ring
// after that. A cache that is full frees what is given back.
//
// Reuse: only a ring of the same geometry (buffer count, buffer size,
// immediate-data offset). The stale bytes of the IUs it held are never
// read: each receive is bounded by its completion's length.
//
// Ownership: a ring is either owned by exactly one channel, from take() to
// give(), or held here. A channel gives its ring back only after its QP is
// destroyed (no receive is posted or in flight), from its release work or
// its failed login.
//
// Lifetime: a member of its Device. Channels give rings back before device
// removal's wait for them returns (the release work does so before waking
// waiters); removal then drains the cache, which cancels the trim work and
// frees every ring, before the device's PD goes.
#pragma once

#include <srpt/abi/device.h>
#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/own.h>
#include <srpt/rt/status.h>
#include <srpt/rt/thread_annotations.h>

namespace srpt {

class RecvRingCache : Pinned {
 public:
  static constexpr u32 kMaxCapacity = 64;
  // How long a ring may sit unused before the trim work frees it.
  static constexpr u32 kIdleMs = 5000;

  struct Geometry {
    u32 count;     // buffers
    u32 size;      // bytes each
    u32 align_at;  // immediate-data offset kept sector-aligned (0: none)
    bool operator==(const Geometry& o) const {
      return count == o.count && size == o.size && align_at == o.align_at;
    }
  };

  // `capacity` at most kMaxCapacity (Params checks it).
  static Result<Own<RecvRingCache>> create(srpt_k_device* kdev, u32 capacity);
  // After drain() (device removal) or when never used.
  ~RecvRingCache();

  // A ring of this geometry: the one given back last, or a new one
  // (srpt_k_ring_create's error when it cannot be made). Process context.
  Result<srpt_k_ring*> take(const Geometry& g);
  // The ring's owner is done with it (its QP is destroyed): kept for the
  // next take(), or freed if the cache is full, off or draining.
  void give(srpt_k_ring* ring, const Geometry& g);
  // Frees every cached ring and stops the trim work; give() frees from now
  // on. Process context, not from the trim work.
  void drain();

  // Rings held now; takes that found one since the device came.
  u32 cached();
  u64 reused();

 private:
  struct Entry {
    srpt_k_ring* ring;
    Geometry geometry;
    u64 given_ns;
  };

  RecvRingCache(SpinLock lock, srpt_k_device* kdev, u32 capacity)
      : lock_(move(lock)), kdev_(kdev), capacity_(capacity) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  // Takes entry i out, keeping the others oldest first.
  srpt_k_ring* remove_at(u32 i) SRPT_REQUIRES(lock_);

  static void trim_fn(void* arg);
  // The trim work: frees the rings idle for kIdleMs, and runs again when
  // the next one will be.
  void trim();

  SpinLock lock_;
  srpt_k_device* const kdev_;
  const u32 capacity_;
  srpt_k_work* trim_work_ = nullptr;
  // Oldest first.
  Entry entries_[kMaxCapacity] SRPT_GUARDED_BY(lock_) = {};
  u32 count_ SRPT_GUARDED_BY(lock_) = 0;
  u64 reused_ SRPT_GUARDED_BY(lock_) = 0;
  bool draining_ SRPT_GUARDED_BY(lock_) = false;
};

}  // namespace srpt
