// SPDX-License-Identifier: GPL-2.0
// CmdContextCache: the command-context sets (cmd_context_set.h) of released
// channels, kept by their device for the next logins (an IdleCache of
// sets, idle_cache.h, for its bounds and lifetime: recv_ring_cache sets at
// most, each freed kIdleMs after it was given back). A set is about 1.3 KiB
// of slab memory per slot, which Debian's init_on_alloc zeroes when it is
// allocated: a large part of a login's time.
//
// Reuse: only a whole set of the same slot count.
//
// Ownership: a channel gives its set back only after its QP is destroyed
// (no work request names a context any more) and every command of it was
// released by the target core, from its release work or its failed login.
#pragma once

#include <srpt/core/cmd_context_set.h>
#include <srpt/core/idle_cache.h>

namespace srpt {

class CmdContextCache : Pinned {
 public:
  // `capacity` at most IdleCache::kMaxCapacity (Params checks it).
  static Result<Own<CmdContextCache>> create(u32 capacity);

  // A whole set of `count` slots given back last, or a new empty one to be
  // filled by the login (CmdContextSet::bind). Process context.
  Result<Own<CmdContextSet>> take(u32 count);
  // The owner is done with `set` (see above): a whole set is kept for the
  // next take(); one that is not, or that finds the cache full, off or
  // draining, is destroyed.
  void give(Own<CmdContextSet> set);
  // Destroys every cached set; give() destroys from now on. Process context.
  void drain() { sets_->drain(); }

  // Sets held now; takes that found one since the device came.
  u32 cached() { return sets_->cached(); }
  u64 reused() { return sets_->reused(); }

 private:
  explicit CmdContextCache(Own<IdleCache> sets) : sets_(move(sets)) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  static IdleCache::Key key(u32 count) { return {count, 0, 0}; }
  static void destroy_set(void* set);

  const Own<IdleCache> sets_;
};

}  // namespace srpt
