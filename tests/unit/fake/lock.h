// SPDX-License-Identifier: GPL-2.0
// Fake kernel mutexes and spinlocks (include/srpt/abi/lock.h).
//
// A real double lock would deadlock and a bad unlock would corrupt the lock;
// the fake records each as a violation instead and carries on. Checked:
//   - lock of a lock the same thread already holds (double lock),
//   - lock of a lock another thread holds, when the current thread cannot
//     block (thread.h: the holder could never release it: deadlock); a
//     spawned thread blocks until it is released,
//   - unlock of a lock not held,
//   - destroy of a held lock,
//   - any use of a pointer that is not a live lock of that type,
//   - lock order: taking a lock while holding one of the same or a later
//     class. The order is enum srpt_lock_class's, except that
//     SRPT_LOCK_RDMA_CM, SRPT_LOCK_LOGIN and then SRPT_LOCK_SRQ come first
//     (lock.h),
//   - sleeping under a spinlock: a mutex, an allocation that may sleep, or
//     any ABI call documented as sleeping (might_sleep()).
// Creating either is an allocation attempt for fault injection (fault.h).
#pragma once

#include <cstddef>
#include <functional>

#include <srpt/abi/lock.h>

namespace fake {

size_t live_mutexes();
size_t live_mutexes_of_class(srpt_lock_class cls);
// The current thread holds a mutex of class `cls`.
bool holds_mutex_of_class(srpt_lock_class cls);
size_t live_spinlocks();
// Locks held right now, over all threads.
size_t held_mutexes();
size_t held_spinlocks();
// The fake's own view (unlike srpt_mutex_is_locked, never forwarded to the
// code under test); false for a pointer that is not a live mutex.
bool mutex_held(const srpt_mutex* m);
bool spinlock_held(const srpt_spinlock* l);

// For the fake's sleeping ABI functions: a violation when the current thread
// holds a spinlock.
void might_sleep(const char* what);

// Runs `hook` once, at the start of the next srpt_mutex_lock(), before it
// looks at the mutex: another thread acting between a caller's reading of
// a pointer and its locking of what the pointer points to.
void before_next_mutex_lock(std::function<void()> hook);

// Forgets every live lock (without freeing it: the code under test may still
// point at it).
void reset_lock();

}  // namespace fake
