// SPDX-License-Identifier: GPL-2.0
// Fake kernel mutexes (include/srpt/abi/lock.h) for a single-threaded host.
//
// A real double lock would deadlock and a bad unlock would corrupt the mutex;
// the fake records each as a violation instead and carries on. Checked:
//   - lock of a mutex already held (double lock),
//   - unlock of a mutex not held,
//   - destroy of a held mutex,
//   - any use of a pointer that is not a live mutex,
//   - lock order: taking a lock while holding one of the same or a later
//     class in enum srpt_lock_class (what lockdep would report).
// srpt_mutex_create() is an allocation attempt for fault injection (fault.h).
#pragma once

#include <cstddef>

#include <srpt/abi/lock.h>

namespace fake {

size_t live_mutexes();
size_t live_mutexes_of_class(srpt_lock_class cls);
// Locks held right now, over all mutexes.
size_t held_mutexes();
// The fake's own view (unlike srpt_mutex_is_locked, never forwarded to the
// code under test); false for a pointer that is not a live mutex.
bool mutex_held(const srpt_mutex* m);

// Forgets every live mutex (without freeing it: the code under test may still
// point at it).
void reset_lock();

}  // namespace fake
