// SPDX-License-Identifier: GPL-2.0
#include "lock.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "fault.h"
#include "violation.h"

struct srpt_mutex {
  srpt_lock_class cls;
  bool locked;
};

namespace fake {
namespace {

// Invariant: `live` holds every mutex created and not yet destroyed; `held`
// lists the locked ones in the order they were taken.
struct LockState {
  std::unordered_set<const srpt_mutex*> live;
  std::vector<const srpt_mutex*> held;
};

LockState& state() {
  static LockState s;
  return s;
}

bool check_live(const srpt_mutex* m, const char* op) {
  if (state().live.count(m)) return true;
  record_violation("%s(%p): not a live mutex", op, static_cast<const void*>(m));
  return false;
}

}  // namespace

size_t live_mutexes() { return state().live.size(); }
size_t live_mutexes_of_class(srpt_lock_class cls) {
  size_t n = 0;
  for (const srpt_mutex* m : state().live) n += m->cls == cls;
  return n;
}
size_t held_mutexes() { return state().held.size(); }
bool mutex_held(const srpt_mutex* m) {
  return state().live.count(m) != 0 && m->locked;
}

void reset_lock() { state() = LockState{}; }

}  // namespace fake

extern "C" srpt_mutex* srpt_mutex_create(srpt_lock_class cls) noexcept {
  if (static_cast<unsigned>(cls) >= SRPT_LOCK_CLASS_COUNT) {
    fake::record_violation("srpt_mutex_create: bad lock class %d",
                           static_cast<int>(cls));
    return nullptr;
  }
  if (fake::next_allocation_fails()) return nullptr;
  srpt_mutex* m = new srpt_mutex{cls, false};
  fake::state().live.insert(m);
  return m;
}

extern "C" void srpt_mutex_destroy(srpt_mutex* m) noexcept {
  if (m == nullptr) return;
  if (!fake::check_live(m, "srpt_mutex_destroy")) return;
  if (m->locked) {
    fake::record_violation("srpt_mutex_destroy(%p): mutex is locked",
                           static_cast<void*>(m));
    auto& held = fake::state().held;
    held.erase(std::find(held.begin(), held.end(), m));
  }
  fake::state().live.erase(m);
  delete m;
}

extern "C" void srpt_mutex_lock(srpt_mutex* m) noexcept {
  if (!fake::check_live(m, "srpt_mutex_lock")) return;
  if (m->locked) {
    fake::record_violation("srpt_mutex_lock(%p): already locked (deadlock)",
                           static_cast<void*>(m));
    return;
  }
  for (const srpt_mutex* h : fake::state().held) {
    if (h->cls >= m->cls)
      fake::record_violation(
          "srpt_mutex_lock: lock of class %d taken while holding class %d",
          static_cast<int>(m->cls), static_cast<int>(h->cls));
  }
  m->locked = true;
  fake::state().held.push_back(m);
}

extern "C" void srpt_mutex_unlock(srpt_mutex* m) noexcept {
  if (!fake::check_live(m, "srpt_mutex_unlock")) return;
  if (!m->locked) {
    fake::record_violation("srpt_mutex_unlock(%p): not locked",
                           static_cast<void*>(m));
    return;
  }
  m->locked = false;
  auto& held = fake::state().held;
  held.erase(std::find(held.begin(), held.end(), m));
}

extern "C" int srpt_mutex_is_locked(srpt_mutex* m) noexcept {
  if (!fake::check_live(m, "srpt_mutex_is_locked")) return 0;
  return m->locked ? 1 : 0;
}
