// SPDX-License-Identifier: GPL-2.0
// IdleCache: what released channels leave for the next logins of their
// device, each item kept under a key (its geometry) and freed after kIdleMs
// unused. Type-erased: an item is an opaque pointer its owner frees with
// the `destroy` function given at create. The receive rings
// (recv_ring_cache.h) and the command-context sets (cmd_context_cache.h)
// are its two users; each wraps it with its own types.
//
// Bounds: at most `capacity` items (module parameter recv_ring_cache; 0
// keeps none), and an item not taken again within kIdleMs of being given
// back is freed by the trim work: an idle target holds nothing here after
// that. A cache that is full, off or draining frees what is given back.
//
// Ownership: an item is either owned by exactly one channel, from take()
// to give(), or held here. Only items that are whole and no longer in use
// by any hardware queue may be given (the users say when that is).
//
// Lifetime: a member of its Device. Channels give their items back before
// device removal's wait for them returns; removal then drains the cache,
// which cancels the trim work and frees every item, before the device's
// PD goes.
#pragma once

#include <srpt/abi/session.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/own.h>
#include <srpt/rt/status.h>
#include <srpt/rt/thread_annotations.h>

namespace srpt {

class IdleCache : Pinned {
 public:
  static constexpr u32 kMaxCapacity = 64;
  // How long an item may sit unused before the trim work frees it.
  static constexpr u32 kIdleMs = 5000;

  // Items are reused only under an equal key.
  struct Key {
    u32 a, b, c;
    bool operator==(const Key& o) const { return a == o.a && b == o.b && c == o.c; }
  };
  using DestroyFn = void (*)(void* item);

  // `capacity` at most kMaxCapacity (Params checks it).
  static Result<Own<IdleCache>> create(u32 capacity, DestroyFn destroy);
  // After drain() (device removal) or when never used.
  ~IdleCache();

  // The item given back last under `key`, or nullptr. Any context.
  void* take(const Key& key);
  // The owner is done with `item` (nullptr: nothing): kept for the next
  // take(), or destroyed if the cache is full, off or draining.
  void give(void* item, const Key& key);
  // Destroys every item and stops the trim work; give() destroys from now
  // on. Process context, not from the trim work.
  void drain();

  // Items held now; takes that found one since the cache was made.
  u32 cached();
  u64 reused();

 private:
  struct Entry {
    void* item;
    Key key;
    u64 given_ns;
  };

  IdleCache(SpinLock lock, u32 capacity, DestroyFn destroy)
      : lock_(move(lock)), capacity_(capacity), destroy_(destroy) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  // Takes entry i out, keeping the others oldest first.
  void* remove_at(u32 i) SRPT_REQUIRES(lock_);

  static void trim_fn(void* arg);
  // The trim work: frees the items idle for kIdleMs, and runs again when
  // the next one will be.
  void trim();

  SpinLock lock_;
  const u32 capacity_;
  const DestroyFn destroy_;
  srpt_k_work* trim_work_ = nullptr;
  // Oldest first.
  Entry entries_[kMaxCapacity] SRPT_GUARDED_BY(lock_) = {};
  u32 count_ SRPT_GUARDED_BY(lock_) = 0;
  u64 reused_ SRPT_GUARDED_BY(lock_) = 0;
  bool draining_ SRPT_GUARDED_BY(lock_) = false;
};

}  // namespace srpt
