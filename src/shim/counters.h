/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live counts of what the module holds, for the debugfs file ib_srpt/objects:
 * they make "destroyed exactly once" and "nothing leaked" checkable from a
 * test. Counting is bookkeeping only; nothing reads the counts but the file.
 */
#ifndef SRPT_SHIM_COUNTERS_H
#define SRPT_SHIM_COUNTERS_H

#include <linux/types.h>

struct dentry;

enum srpt_counter {
	SRPT_CNT_ALLOCS,		/* live allocations (alloc.c) */
	SRPT_CNT_ALLOC_BYTES,		/* their ksize() sum */
	SRPT_CNT_CQS,			/* channel CQs taken from the pool */
	SRPT_CNT_QPS,			/* channel QPs */
	SRPT_CNT_SESSIONS,		/* target-core sessions */
	SRPT_CNT_LOGIN_ZERO,		/* login handler returned 0: a channel owns the cm_id */
	SRPT_CNT_LOGIN_NONZERO,		/* returned non-zero: the CM core destroys it */
	SRPT_CNT_CM_DESTROYED,		/* connection cm_ids destroyed by a channel */
	SRPT_CNT_OWNERSHIP_BROKEN,	/* breaches of the rule of cm.h (also WARN) */
	SRPT_CNT_SRQS,			/* device shared receive queues */
	/*
	 * QPs on an SRQ destroyed before their Last WQE Reached event, on a
	 * kernel whose RDMA core relies on the event (queue.c): a receive
	 * completion may then still come for the freed QP. A breach, as
	 * ownership_broken is (also warned about).
	 */
	SRPT_CNT_SRQ_QP_EARLY,
	SRPT_CNT_COUNT,
};

void srpt_count_add(enum srpt_counter c, long delta);
static inline void srpt_count_inc(enum srpt_counter c) { srpt_count_add(c, 1); }
static inline void srpt_count_dec(enum srpt_counter c) { srpt_count_add(c, -1); }

/*
 * WARNs with every count when a live count is not zero or a cm_id a channel
 * owned was not destroyed by it. Module exit, after everything is torn down.
 */
void srpt_counters_exit_check(void);

/* Creates ib_srpt/objects in `dir`. */
void srpt_counters_debugfs_create(struct dentry *dir);

#endif /* SRPT_SHIM_COUNTERS_H */
