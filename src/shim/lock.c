// SPDX-License-Identifier: GPL-2.0
/*
 * Locks for the core: include/srpt/abi/lock.h.
 *
 * One lockdep class per enum srpt_lock_class, so that lockdep checks the
 * order the ABI header documents rather than lumping every core mutex into
 * the class of this file's single mutex_init() call site.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <srpt/abi/lock.h>
#include "shim.h"

struct srpt_mutex {
	struct mutex mutex;
};

static struct lock_class_key srpt_lock_keys[SRPT_LOCK_CLASS_COUNT];
static const char *const srpt_lock_names[SRPT_LOCK_CLASS_COUNT] = {
	[SRPT_LOCK_TARGET] = "srpt_target_lock",
	[SRPT_LOCK_PORT] = "srpt_port_lock",
	[SRPT_LOCK_TEST] = "srpt_test_lock",
	[SRPT_LOCK_CHANNEL] = "srpt_channel_lock",
	[SRPT_LOCK_LOGIN] = "srpt_login_lock",
	[SRPT_LOCK_SRQ] = "srpt_srq_lock",
	[SRPT_LOCK_IDLE_CACHE] = "srpt_idle_cache_lock",
	[SRPT_LOCK_RDMA_CM] = "srpt_rdma_cm_lock",
};

struct srpt_mutex *srpt_mutex_create(enum srpt_lock_class cls)
{
	struct srpt_mutex *m;

	if (WARN_ON_ONCE((unsigned int)cls >= SRPT_LOCK_CLASS_COUNT))
		return NULL;
	m = srpt_shim_kmalloc(sizeof(*m), GFP_KERNEL | __GFP_ZERO);
	if (!m)
		return NULL;
	__mutex_init(&m->mutex, srpt_lock_names[cls], &srpt_lock_keys[cls]);
	return m;
}

void srpt_mutex_destroy(struct srpt_mutex *m)
{
	if (!m)
		return;
	mutex_destroy(&m->mutex);
	srpt_shim_kfree(m);
}

void srpt_mutex_lock(struct srpt_mutex *m)
{
	mutex_lock(&m->mutex);
}

void srpt_mutex_unlock(struct srpt_mutex *m)
{
	mutex_unlock(&m->mutex);
}

int srpt_mutex_is_locked(struct srpt_mutex *m)
{
	return mutex_is_locked(&m->mutex);
}

struct srpt_spinlock {
	spinlock_t lock;
	unsigned long flags;	/* saved by the one holder */
};

struct srpt_spinlock *srpt_spinlock_create(enum srpt_lock_class cls)
{
	struct srpt_spinlock *l;

	if (WARN_ON_ONCE((unsigned int)cls >= SRPT_LOCK_CLASS_COUNT))
		return NULL;
	l = srpt_shim_kmalloc(sizeof(*l), GFP_KERNEL | __GFP_ZERO);
	if (!l)
		return NULL;
	spin_lock_init(&l->lock);
	lockdep_set_class_and_name(&l->lock, &srpt_lock_keys[cls],
				   srpt_lock_names[cls]);
	return l;
}

void srpt_spinlock_destroy(struct srpt_spinlock *l)
{
	srpt_shim_kfree(l);
}

void srpt_spin_lock_irqsave(struct srpt_spinlock *l)
{
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	l->flags = flags;
}

void srpt_spin_unlock_irqrestore(struct srpt_spinlock *l)
{
	spin_unlock_irqrestore(&l->lock, l->flags);
}
