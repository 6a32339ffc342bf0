/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks for the core. The kernel objects live in the shim (their size depends
 * on the kernel configuration: lockdep makes them larger), so creating one can
 * fail and the core holds an opaque pointer.
 *
 * Each lock belongs to a lock class named here. Lockdep checks ordering per
 * class, so locks that nest must be of different classes. The lock order of
 * the whole module is RDMA_CM, LOGIN, SRQ, TARGET, PORT, TEST, CHANNEL,
 * IDLE_CACHE: a lock may only be taken while holding locks of classes before
 * it. A class's value is not its place in that order; the unit tests' fake
 * ranks the classes by the order (rank() in tests/unit/fake/lock.cpp). What
 * each of the core's locks serialises: include/srpt/core/target.h.
 */
#ifndef SRPT_ABI_LOCK_H
#define SRPT_ABI_LOCK_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

enum srpt_lock_class {
	SRPT_LOCK_TARGET = 0,	/* the device registry and global settings */
	SRPT_LOCK_PORT = 1,	/* no lock of the module; the fake's self-tests
				 * nest it after TARGET */
	SRPT_LOCK_TEST = 2,	/* host unit tests of the lock wrappers */
	SRPT_LOCK_CHANNEL = 3,	/* spinlock: one channel's state, slots, credits */
	SRPT_LOCK_LOGIN = 4,	/* one per RDMA port: serialises its logins with
				 * TPG disable and drop, its use_srq switch and
				 * device removal; first in the lock order, and
				 * never two of them held at once */
	SRPT_LOCK_SRQ = 5,	/* one per RDMA device: its SRQ is made by one
				 * use_srq switch at a time; after LOGIN */
	SRPT_LOCK_IDLE_CACHE = 6, /* spinlock, two per RDMA device: its caches
				   * of receive rings and of command-context
				   * sets; innermost, nothing is taken under
				   * it, and never both at once */
	SRPT_LOCK_RDMA_CM = 7,	/* one: writes of the RDMA/CM port, each
				 * holding it while it makes and destroys
				 * listeners (destroying one waits for its
				 * logins); first in the lock order */
	SRPT_LOCK_CLASS_COUNT
};

struct srpt_mutex;

/* NULL when out of memory. May sleep. */
struct srpt_mutex *srpt_mutex_create(enum srpt_lock_class cls) SRPT_NOEXCEPT;
/* The mutex must be unlocked. Accepts NULL. */
void srpt_mutex_destroy(struct srpt_mutex *m) SRPT_NOEXCEPT;
void srpt_mutex_lock(struct srpt_mutex *m) SRPT_NOEXCEPT;
void srpt_mutex_unlock(struct srpt_mutex *m) SRPT_NOEXCEPT;
/* Lockdep assertion in debug kernels; always true where not checkable. */
int srpt_mutex_is_locked(struct srpt_mutex *m) SRPT_NOEXCEPT;

/*
 * Spinlocks, taken with interrupts disabled (irqsave): for state that
 * completion handlers and target-core callbacks share. Nothing that sleeps
 * runs under one. Only one holder at a time, so the saved interrupt flags
 * live in the lock object.
 */
struct srpt_spinlock;
struct srpt_spinlock *srpt_spinlock_create(enum srpt_lock_class cls) SRPT_NOEXCEPT;
void srpt_spinlock_destroy(struct srpt_spinlock *l) SRPT_NOEXCEPT;
void srpt_spin_lock_irqsave(struct srpt_spinlock *l) SRPT_NOEXCEPT;
void srpt_spin_unlock_irqrestore(struct srpt_spinlock *l) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_LOCK_H */
