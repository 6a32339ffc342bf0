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

struct srpt_mutex {
	struct mutex mutex;
};

static struct lock_class_key srpt_lock_keys[SRPT_LOCK_CLASS_COUNT];
static const char *const srpt_lock_names[SRPT_LOCK_CLASS_COUNT] = {
	[SRPT_LOCK_TARGET] = "srpt_target_lock",
	[SRPT_LOCK_PORT] = "srpt_port_lock",
	[SRPT_LOCK_TEST] = "srpt_test_lock",
};

struct srpt_mutex *srpt_mutex_create(enum srpt_lock_class cls)
{
	struct srpt_mutex *m;

	if (WARN_ON_ONCE((unsigned int)cls >= SRPT_LOCK_CLASS_COUNT))
		return NULL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
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
	kfree(m);
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
