// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/recv_ring_cache.h>

namespace srpt {

Result<Own<RecvRingCache>> RecvRingCache::create(srpt_k_device* kdev, u32 capacity) {
  Own<IdleCache> rings = SRPT_TRY(IdleCache::create(capacity, &RecvRingCache::destroy_ring));
  return make_own<RecvRingCache>(alloc_sleep, kdev, move(rings));
}

Result<srpt_k_ring*> RecvRingCache::take(const Geometry& g) {
  if (void* cached = rings_->take(key(g))) return static_cast<srpt_k_ring*>(cached);
  srpt_k_ring* ring = nullptr;
  const int ret = srpt_k_ring_create(kdev_, g.count, g.size, g.align_at, SRPT_RING_RECV, &ring);
  if (ret) return Error::from_kernel(ret);
  return ring;
}

void RecvRingCache::destroy_ring(void* ring) {
  // SAFETY: the cache holds only rings given back by their channel after
  // its QP was destroyed, and each once.
  srpt_k_ring_destroy(static_cast<srpt_k_ring*>(ring));
}

}  // namespace srpt
