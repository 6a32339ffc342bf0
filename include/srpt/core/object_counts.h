// SPDX-License-Identifier: GPL-2.0
// Counts of the core's login objects, for debugfs ib_srpt/objects and tests:
// with them "every channel went" and "every cm_id a channel adopted was
// destroyed exactly once, by that channel" are checkable from outside.
//
// Counting is bookkeeping only: no decision reads a count. Updated from any
// context with atomics (a channel can be made in the login handler and go in
// its release work or in the login handler).
#pragma once

#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

namespace srpt {

struct ObjectCounts {
  u64 channels_live;    // Channel objects made and not yet destroyed
  u64 cm_adopted;       // connection cm_ids a channel adopted (login answered 0)
  u64 cm_destroyed;     // ... and destroyed by that channel
};

class ObjectCounters : NonCopyable {
 public:
  ObjectCounters() = default;
  void channel_made() { add(channels_live_, 1); }
  void channel_gone() { add(channels_live_, ~u64{0}); }  // minus one
  void cm_adopted() { add(cm_adopted_, 1); }
  void cm_destroyed() { add(cm_destroyed_, 1); }

  ObjectCounts snapshot() const {
    return ObjectCounts{load(channels_live_), load(cm_adopted_), load(cm_destroyed_)};
  }

 private:
  static void add(u64& c, u64 d) { __atomic_fetch_add(&c, d, __ATOMIC_RELAXED); }
  static u64 load(const u64& c) { return __atomic_load_n(&c, __ATOMIC_RELAXED); }

  u64 channels_live_ = 0;
  u64 cm_adopted_ = 0;
  u64 cm_destroyed_ = 0;
};

}  // namespace srpt
