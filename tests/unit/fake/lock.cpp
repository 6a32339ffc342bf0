// SPDX-License-Identifier: GPL-2.0
#include "lock.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fault.h"
#include "thread.h"
#include "violation.h"

// Both kinds share the bookkeeping; `spin` tells them apart.
struct FakeLock {
  srpt_lock_class cls;
  bool spin;
  bool locked;
  int owner;  // thread id (thread.h) while locked
};

struct srpt_mutex : FakeLock {};
struct srpt_spinlock : FakeLock {};

namespace fake {
namespace {

// Invariant: `live` holds every lock created and not yet destroyed; `held`
// lists the locked ones in the order they were taken, each with its owner.
// `phantom` counts, per (thread, lock), acquisitions refused because another
// thread held the lock: the matching unlock is swallowed.
struct LockState {
  std::unordered_set<const FakeLock*> live;
  std::vector<const FakeLock*> held;
  std::map<std::pair<int, const FakeLock*>, int> phantom;
  std::function<void()> before_lock;
};

LockState& state() {
  static LockState s;
  return s;
}

const char* kind(const FakeLock* l) { return l->spin ? "spinlock" : "mutex"; }

bool check_live(const FakeLock* l, bool spin, const char* op) {
  if (state().live.count(l) && l->spin == spin) return true;
  record_violation("%s(%p): not a live %s", op, static_cast<const void*>(l),
                   spin ? "spinlock" : "mutex");
  return false;
}

// The documented lock order: RDMA_CM, LOGIN, SRQ, then the class list
// from TARGET.
int rank(srpt_lock_class cls) {
  if (cls == SRPT_LOCK_RDMA_CM) return -3;
  if (cls == SRPT_LOCK_LOGIN) return -2;
  if (cls == SRPT_LOCK_SRQ) return -1;
  return cls;
}

bool holds_spinlock(int thread) {
  for (const FakeLock* h : state().held)
    if (h->spin && h->owner == thread) return true;
  return false;
}

void take(FakeLock* l, const char* op) {
  LockState& s = state();
  const int me = current_thread();
  if (l->locked && l->owner == me) {
    // As before threads: the second lock is ignored, the first unlock
    // releases.
    record_violation("%s(%p): already locked (deadlock)", op, static_cast<void*>(l));
    return;
  }
  if (l->locked) {
    // Another thread holds it. A spawned thread waits; anyone else would
    // wait forever (see thread.h).
    if (l->spin || !block_until([l] { return !l->locked; })) {
      record_violation("%s(%p): held by thread %d, which can never release it "
                       "while thread %d waits (deadlock)",
                       op, static_cast<void*>(l), l->owner, me);
      s.phantom[{me, l}]++;
      return;
    }
  }
  for (const FakeLock* h : s.held) {
    if (h->owner == me && rank(h->cls) >= rank(l->cls))
      record_violation("%s: lock of class %d taken while holding class %d", op,
                       static_cast<int>(l->cls), static_cast<int>(h->cls));
  }
  l->locked = true;
  l->owner = me;
  s.held.push_back(l);
}

void give(FakeLock* l, const char* op) {
  LockState& s = state();
  const int me = current_thread();
  auto ph = s.phantom.find({me, l});
  if (ph != s.phantom.end()) {
    if (--ph->second == 0) s.phantom.erase(ph);
    return;
  }
  if (!l->locked) {
    record_violation("%s(%p): not locked", op, static_cast<void*>(l));
    return;
  }
  if (l->owner != me)
    record_violation("%s(%p): locked by thread %d, unlocked by thread %d", op,
                     static_cast<void*>(l), l->owner, me);
  l->locked = false;
  s.held.erase(std::find(s.held.begin(), s.held.end(), l));
}

void destroy_lock(FakeLock* l, const char* op) {
  LockState& s = state();
  if (l->locked) {
    record_violation("%s(%p): %s is locked", op, static_cast<void*>(l), kind(l));
    s.held.erase(std::find(s.held.begin(), s.held.end(), l));
  }
  s.live.erase(l);
}

size_t count(bool spin, bool held_only) {
  size_t n = 0;
  if (held_only) {
    for (const FakeLock* l : state().held) n += l->spin == spin;
  } else {
    for (const FakeLock* l : state().live) n += l->spin == spin;
  }
  return n;
}

}  // namespace

size_t live_mutexes() { return count(false, false); }
size_t live_mutexes_of_class(srpt_lock_class cls) {
  size_t n = 0;
  for (const FakeLock* l : state().live) n += !l->spin && l->cls == cls;
  return n;
}
bool holds_mutex_of_class(srpt_lock_class cls) {
  const int me = current_thread();
  for (const FakeLock* l : state().held)
    if (!l->spin && l->cls == cls && l->owner == me) return true;
  return false;
}
size_t live_spinlocks() { return count(true, false); }
size_t held_mutexes() { return count(false, true); }
size_t held_spinlocks() { return count(true, true); }
bool mutex_held(const srpt_mutex* m) {
  return state().live.count(m) != 0 && !m->spin && m->locked;
}
bool spinlock_held(const srpt_spinlock* l) {
  return state().live.count(l) != 0 && l->spin && l->locked;
}

void might_sleep(const char* what) {
  if (holds_spinlock(current_thread()))
    record_violation("%s may sleep and was called under a spinlock", what);
}

void before_next_mutex_lock(std::function<void()> hook) { state().before_lock = std::move(hook); }

void reset_lock() { state() = LockState{}; }

}  // namespace fake

extern "C" srpt_mutex* srpt_mutex_create(srpt_lock_class cls) noexcept {
  if (static_cast<unsigned>(cls) >= SRPT_LOCK_CLASS_COUNT) {
    fake::record_violation("srpt_mutex_create: bad lock class %d",
                           static_cast<int>(cls));
    return nullptr;
  }
  fake::might_sleep("srpt_mutex_create");
  if (fake::next_allocation_fails()) return nullptr;
  srpt_mutex* m = new srpt_mutex{};
  m->cls = cls;
  fake::state().live.insert(m);
  return m;
}

extern "C" void srpt_mutex_destroy(srpt_mutex* m) noexcept {
  if (m == nullptr) return;
  if (!fake::check_live(m, false, "srpt_mutex_destroy")) return;
  fake::destroy_lock(m, "srpt_mutex_destroy");
  delete m;
}

extern "C" void srpt_mutex_lock(srpt_mutex* m) noexcept {
  if (std::function<void()> hook = std::exchange(fake::state().before_lock, nullptr)) hook();
  if (!fake::check_live(m, false, "srpt_mutex_lock")) return;
  fake::might_sleep("srpt_mutex_lock");
  fake::take(m, "srpt_mutex_lock");
}

extern "C" void srpt_mutex_unlock(srpt_mutex* m) noexcept {
  if (!fake::check_live(m, false, "srpt_mutex_unlock")) return;
  fake::give(m, "srpt_mutex_unlock");
}

extern "C" int srpt_mutex_is_locked(srpt_mutex* m) noexcept {
  if (!fake::check_live(m, false, "srpt_mutex_is_locked")) return 0;
  return m->locked ? 1 : 0;
}

extern "C" srpt_spinlock* srpt_spinlock_create(srpt_lock_class cls) noexcept {
  if (static_cast<unsigned>(cls) >= SRPT_LOCK_CLASS_COUNT) {
    fake::record_violation("srpt_spinlock_create: bad lock class %d",
                           static_cast<int>(cls));
    return nullptr;
  }
  fake::might_sleep("srpt_spinlock_create");
  if (fake::creation_error(fake::Call::SpinlockCreate) != 0) return nullptr;
  srpt_spinlock* l = new srpt_spinlock{};
  l->cls = cls;
  l->spin = true;
  fake::state().live.insert(l);
  return l;
}

extern "C" void srpt_spinlock_destroy(srpt_spinlock* l) noexcept {
  if (l == nullptr) return;
  if (!fake::check_live(l, true, "srpt_spinlock_destroy")) return;
  fake::destroy_lock(l, "srpt_spinlock_destroy");
  delete l;
}

extern "C" void srpt_spin_lock_irqsave(srpt_spinlock* l) noexcept {
  if (!fake::check_live(l, true, "srpt_spin_lock_irqsave")) return;
  fake::take(l, "srpt_spin_lock_irqsave");
}

extern "C" void srpt_spin_unlock_irqrestore(srpt_spinlock* l) noexcept {
  if (!fake::check_live(l, true, "srpt_spin_unlock_irqrestore")) return;
  fake::give(l, "srpt_spin_unlock_irqrestore");
}
