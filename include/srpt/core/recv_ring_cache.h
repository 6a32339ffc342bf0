// SPDX-License-Identifier: GPL-2.0
// RecvRingCache: the receive rings of released channels, kept by their
// device for the next logins (an IdleCache of rings, idle_cache.h, for its
// bounds and lifetime). Making a ring (a buffer of about 8 KiB per
// credit, allocated, zeroed and DMA-mapped) is the largest step of a
// login; a login that finds a ring of its geometry here skips it.
//
// Reuse: only a ring of the same geometry (buffer count, buffer size,
// immediate-data offset). The stale bytes of the IUs it held are never
// read: each receive is bounded by its completion's length.
//
// Ownership: a channel gives its ring back only after its QP is destroyed
// (no receive is posted or in flight), from its release work or its failed
// login.
#pragma once

#include <srpt/abi/device.h>
#include <srpt/abi/queue.h>
#include <srpt/core/idle_cache.h>

namespace srpt {

class RecvRingCache : Pinned {
 public:
  static constexpr u32 kMaxCapacity = IdleCache::kMaxCapacity;
  static constexpr u32 kIdleMs = IdleCache::kIdleMs;

  struct Geometry {
    u32 count;     // buffers
    u32 size;      // bytes each
    u32 align_at;  // immediate-data offset kept sector-aligned (0: none)
  };

  // `capacity` at most kMaxCapacity (Params checks it).
  static Result<Own<RecvRingCache>> create(srpt_k_device* kdev, u32 capacity);

  // A ring of this geometry: the one given back last, or a new one
  // (srpt_k_ring_create's error when it cannot be made). Process context.
  Result<srpt_k_ring*> take(const Geometry& g);
  // The ring's owner is done with it (its QP is destroyed): kept for the
  // next take(), or freed if the cache is full, off or draining.
  void give(srpt_k_ring* ring, const Geometry& g) { rings_->give(ring, key(g)); }
  // Frees every cached ring; give() frees from now on. Process context.
  void drain() { rings_->drain(); }

  // Rings held now; takes that found one since the device came.
  u32 cached() { return rings_->cached(); }
  u64 reused() { return rings_->reused(); }

 private:
  RecvRingCache(srpt_k_device* kdev, Own<IdleCache> rings)
      : kdev_(kdev), rings_(move(rings)) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  static IdleCache::Key key(const Geometry& g) { return {g.count, g.size, g.align_at}; }
  static void destroy_ring(void* ring);

  srpt_k_device* const kdev_;
  const Own<IdleCache> rings_;
};

}  // namespace srpt
