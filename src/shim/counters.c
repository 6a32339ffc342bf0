// SPDX-License-Identifier: GPL-2.0
/*
 * Object counts: src/shim/counters.h.
 *
 * debugfs ib_srpt/objects (read-only), one "name value" line each: first the
 * shim's counts, then the core's (srpt_core_show_objects()). With no channel
 * left, every count of a live object is back to what it was before the
 * logins, and the cm_ids channels destroyed equal the logins answered 0.
 *
 * At module exit the live counts are all back to zero and every cm_id a
 * channel owned was destroyed by it (srpt_counters_exit_check()), so that
 * every rmmod is a leak check, on every kernel.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <srpt/abi/fabric.h>
#include "counters.h"
#include "shim.h"

static atomic_long_t srpt_counts[SRPT_CNT_COUNT];

static const char *const srpt_count_names[SRPT_CNT_COUNT] = {
	[SRPT_CNT_ALLOCS] = "allocs",
	[SRPT_CNT_ALLOC_BYTES] = "alloc_bytes",
	[SRPT_CNT_CQS] = "cqs",
	[SRPT_CNT_QPS] = "qps",
	[SRPT_CNT_SESSIONS] = "sessions",
	[SRPT_CNT_LOGIN_ZERO] = "login_ret_zero",
	[SRPT_CNT_LOGIN_NONZERO] = "login_ret_nonzero",
	[SRPT_CNT_CM_DESTROYED] = "cm_destroyed_by_channel",
	[SRPT_CNT_SRQS] = "srqs",
	[SRPT_CNT_OWNERSHIP_BROKEN] = "ownership_broken",
	[SRPT_CNT_SRQ_QP_EARLY] = "srq_qps_destroyed_before_last_wqe",
};

void srpt_count_add(enum srpt_counter c, long delta)
{
	atomic_long_add(delta, &srpt_counts[c]);
}

void srpt_counters_exit_check(void)
{
	long c[SRPT_CNT_COUNT];
	int i;

	for (i = 0; i < SRPT_CNT_COUNT; i++)
		c[i] = atomic_long_read(&srpt_counts[i]);
	WARN(c[SRPT_CNT_ALLOCS] || c[SRPT_CNT_ALLOC_BYTES] ||
	     c[SRPT_CNT_CQS] || c[SRPT_CNT_QPS] || c[SRPT_CNT_SESSIONS] ||
	     c[SRPT_CNT_SRQS] || c[SRPT_CNT_OWNERSHIP_BROKEN] ||
	     c[SRPT_CNT_SRQ_QP_EARLY] ||
	     c[SRPT_CNT_LOGIN_ZERO] != c[SRPT_CNT_CM_DESTROYED],
	     KBUILD_MODNAME ": objects left at module exit: allocs %ld (%ld bytes) cqs %ld qps %ld sessions %ld srqs %ld ownership_broken %ld srq_qps_destroyed_before_last_wqe %ld; logins answered 0 %ld, cm_ids destroyed by channels %ld\n",
	     c[SRPT_CNT_ALLOCS], c[SRPT_CNT_ALLOC_BYTES], c[SRPT_CNT_CQS],
	     c[SRPT_CNT_QPS], c[SRPT_CNT_SESSIONS], c[SRPT_CNT_SRQS],
	     c[SRPT_CNT_OWNERSHIP_BROKEN], c[SRPT_CNT_SRQ_QP_EARLY],
	     c[SRPT_CNT_LOGIN_ZERO],
	     c[SRPT_CNT_CM_DESTROYED]);
}

static int srpt_objects_show(struct seq_file *m, void *unused)
{
	struct srpt_k_seq seq = { .m = m };
	int i;

	for (i = 0; i < SRPT_CNT_COUNT; i++)
		seq_printf(m, "%s %ld\n", srpt_count_names[i],
			   atomic_long_read(&srpt_counts[i]));
	/* Process context (a read of the file); the core takes its locks. */
	srpt_core_show_objects(&seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_objects);

void srpt_counters_debugfs_create(struct dentry *dir)
{
	debugfs_create_file("objects", 0444, dir, NULL, &srpt_objects_fops);
}
