// SPDX-License-Identifier: GPL-2.0
// Mutex: a kernel mutex owned by the core; MutexGuard: holding it.
//
// The kernel object is allocated by the shim, so a Mutex is made by the
// fallible Mutex::create() and is move-only. A lock is only ever held through
// a MutexGuard, whose lifetime is the critical section.
#pragma once

#include <srpt/abi/lock.h>
#include <srpt/rt/status.h>
#include <srpt/rt/thread_annotations.h>
#include <srpt/rt/utility.h>

namespace srpt {

class SRPT_CAPABILITY("mutex") Mutex : NonCopyable {
 public:
  static Result<Mutex> create(srpt_lock_class cls) {
    srpt_mutex* m = srpt_mutex_create(cls);
    if (m == nullptr) return Error::NoMem;
    return Mutex(m);
  }
  Mutex(Mutex&& other) noexcept : m_(exchange(other.m_, nullptr)) {}
  Mutex& operator=(Mutex&&) = delete;
  ~Mutex() { srpt_mutex_destroy(m_); }

  void lock() SRPT_ACQUIRE() { srpt_mutex_lock(m_); }
  void unlock() SRPT_RELEASE() { srpt_mutex_unlock(m_); }
  bool is_locked() const { return srpt_mutex_is_locked(m_) != 0; }

 private:
  explicit Mutex(srpt_mutex* m) : m_(m) {}
  srpt_mutex* m_;
};

class SRPT_SCOPED_CAPABILITY MutexGuard : Pinned {
 public:
  explicit MutexGuard(Mutex& m) SRPT_ACQUIRE(m) : m_(m) { m_.lock(); }
  ~MutexGuard() SRPT_RELEASE() { m_.unlock(); }

 private:
  Mutex& m_;
};

// A spinlock with interrupts disabled while held. Nothing that may sleep
// (allocation with alloc_sleep, a Mutex, a call into the target core or the
// CM) may run under a SpinGuard.
class SRPT_CAPABILITY("spinlock") SpinLock : NonCopyable {
 public:
  static Result<SpinLock> create(srpt_lock_class cls) {
    srpt_spinlock* l = srpt_spinlock_create(cls);
    if (l == nullptr) return Error::NoMem;
    return SpinLock(l);
  }
  SpinLock(SpinLock&& other) noexcept : l_(exchange(other.l_, nullptr)) {}
  SpinLock& operator=(SpinLock&&) = delete;
  ~SpinLock() { srpt_spinlock_destroy(l_); }

  void lock() SRPT_ACQUIRE() { srpt_spin_lock_irqsave(l_); }
  void unlock() SRPT_RELEASE() { srpt_spin_unlock_irqrestore(l_); }

 private:
  explicit SpinLock(srpt_spinlock* l) : l_(l) {}
  srpt_spinlock* l_;
};

class SRPT_SCOPED_CAPABILITY SpinGuard : Pinned {
 public:
  explicit SpinGuard(SpinLock& l) SRPT_ACQUIRE(l) : l_(l) { l_.lock(); }
  ~SpinGuard() SRPT_RELEASE() { l_.unlock(); }

 private:
  SpinLock& l_;
};

}  // namespace srpt
