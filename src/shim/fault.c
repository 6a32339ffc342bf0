// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection points: src/shim/fault.h.
 *
 * debugfs ib_srpt/fault (root only):
 *   write "POINT N"  the Nth call of POINT from now fails, once (N >= 1);
 *                    "POINT 0" disarms it
 *   write "off"      disarms every point
 *   write "leak N"   allocates N bytes through the counted allocator and
 *                    drops the pointer: a leak on purpose, for the tests that
 *                    prove the module-exit check (counters.c) and the guest
 *                    runner's kmemleak check fire
 *   write "hold N"   allocates SRPT_FAULT_HELD objects of N bytes through
 *                    the counted allocator and keeps them; "release 0" frees
 *                    them. Lets a test see what the counters charge for an
 *                    object wherever the allocator put it (case 36)
 *   read             one line per point: name, calls left until the armed
 *                    failure (0: disarmed), calls seen, failures injected
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "shim.h"

struct srpt_fault {
	const char *name;
	atomic_t countdown;	/* calls until the failure; 0: disarmed */
	atomic_long_t calls;
	atomic_long_t injected;
};

static struct srpt_fault srpt_faults[SRPT_FAULT_POINT_COUNT] = {
	[SRPT_FAULT_ALLOC] = { .name = "alloc" },
	[SRPT_FAULT_CQ_CREATE] = { .name = "cq_create" },
	[SRPT_FAULT_QP_CREATE] = { .name = "qp_create" },
	[SRPT_FAULT_QP_MODIFY] = { .name = "qp_modify" },
	[SRPT_FAULT_SESSION] = { .name = "session" },
	[SRPT_FAULT_CM_ACCEPT] = { .name = "cm_accept" },
	[SRPT_FAULT_CM_REJECT] = { .name = "cm_reject" },
	[SRPT_FAULT_SRQ_CREATE] = { .name = "srq_create" },
	[SRPT_FAULT_CHUNK_LARGE] = { .name = "chunk_large" },
	[SRPT_FAULT_DM_PORT_CAP] = { .name = "dm_port_cap" },
	[SRPT_FAULT_DM_AGENT] = { .name = "dm_agent" },
	[SRPT_FAULT_QP_EVENT] = { .name = "qp_event" },
	[SRPT_FAULT_SRQ_EVENT] = { .name = "srq_event" },
	[SRPT_FAULT_QP_EVENT_LATE] = { .name = "qp_event_late" },
	[SRPT_FAULT_LAST_WQE_LATE] = { .name = "last_wqe_late" },
	[SRPT_FAULT_CHAIN_BREAK] = { .name = "chain_break" },
};

bool srpt_fault_hit(enum srpt_fault_point point)
{
	struct srpt_fault *f = &srpt_faults[point];

	atomic_long_inc(&f->calls);
	/* Decrements only while armed; exactly one caller sees 0. */
	if (atomic_dec_if_positive(&f->countdown) != 0)
		return false;
	atomic_long_inc(&f->injected);
	return true;
}

/* Objects of "hold N": enough that KFENCE, sampling one allocation every
 * few milliseconds, gets some of them (case 36 sets its interval to 1 ms). */
#define SRPT_FAULT_HELD 20000
static void **srpt_fault_held;
static DEFINE_MUTEX(srpt_fault_held_lock);

static void srpt_fault_release_locked(void)
{
	int i;

	lockdep_assert_held(&srpt_fault_held_lock);
	if (!srpt_fault_held)
		return;
	for (i = 0; i < SRPT_FAULT_HELD; i++)
		srpt_shim_kfree(srpt_fault_held[i]);
	kvfree(srpt_fault_held);
	srpt_fault_held = NULL;
}

static void srpt_fault_release(void)
{
	mutex_lock(&srpt_fault_held_lock);
	srpt_fault_release_locked();
	mutex_unlock(&srpt_fault_held_lock);
}

static int srpt_fault_hold(unsigned int size)
{
	int ret = 0;
	int i;

	if (!size || size > PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&srpt_fault_held_lock);
	if (srpt_fault_held) {
		ret = -EBUSY;
		goto out;
	}
	srpt_fault_held = kvcalloc(SRPT_FAULT_HELD, sizeof(void *), GFP_KERNEL);
	if (!srpt_fault_held) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < SRPT_FAULT_HELD; i++) {
		srpt_fault_held[i] = srpt_shim_kmalloc(size, GFP_KERNEL);
		if (!srpt_fault_held[i]) {
			srpt_fault_release_locked();
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	mutex_unlock(&srpt_fault_held_lock);
	return ret;
}

static int srpt_fault_show(struct seq_file *m, void *unused)
{
	int i;

	seq_puts(m, "# point armed_in calls injected\n");
	for (i = 0; i < SRPT_FAULT_POINT_COUNT; i++)
		seq_printf(m, "%s %d %ld %ld\n", srpt_faults[i].name,
			   atomic_read(&srpt_faults[i].countdown),
			   atomic_long_read(&srpt_faults[i].calls),
			   atomic_long_read(&srpt_faults[i].injected));
	return 0;
}

static int srpt_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, srpt_fault_show, NULL);
}

static ssize_t srpt_fault_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[64], name[32];
	unsigned int nth;
	int i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	if (sysfs_streq(buf, "off")) {
		for (i = 0; i < SRPT_FAULT_POINT_COUNT; i++)
			atomic_set(&srpt_faults[i].countdown, 0);
		return len;
	}
	if (sscanf(buf, "%31s %u", name, &nth) != 2 || nth > INT_MAX)
		return -EINVAL;
	if (!strcmp(name, "hold")) {
		int ret = srpt_fault_hold(nth);

		return ret ? ret : len;
	}
	if (!strcmp(name, "release")) {
		srpt_fault_release();
		return len;
	}
	if (!strcmp(name, "leak")) {
		if (!nth || !srpt_shim_kmalloc(nth, GFP_KERNEL))
			return -ENOMEM;
		pr_warn("fault injection: leaked %u bytes on request\n", nth);
		return len;
	}
	for (i = 0; i < SRPT_FAULT_POINT_COUNT; i++) {
		if (strcmp(name, srpt_faults[i].name))
			continue;
		atomic_set(&srpt_faults[i].countdown, nth);
		pr_info("fault injection: %s %s\n", name,
			nth ? "armed" : "disarmed");
		return len;
	}
	return -EINVAL;
}

static const struct file_operations srpt_fault_fops = {
	.owner = THIS_MODULE,
	.open = srpt_fault_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = srpt_fault_write,
};

void srpt_fault_debugfs_create(struct dentry *dir)
{
	debugfs_create_file("fault", 0600, dir, NULL, &srpt_fault_fops);
}

void srpt_fault_exit(void)
{
	srpt_fault_release();
}
