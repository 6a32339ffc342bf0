/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection: points in the shim where a test can make a kernel call
 * fail, through the debugfs file ib_srpt/fault. Always compiled in, inert
 * until armed. The shim only asks "fail this call?" right before the real
 * call and returns the error the call would; what follows (reject, unwind,
 * teardown) is the core's normal error path.
 *
 * Debian 12's kernel is built without CONFIG_FAULT_INJECTION, so the kernel's
 * own framework (failslab, fail_function) is not available to the guest tests.
 */
#ifndef SRPT_SHIM_FAULT_H
#define SRPT_SHIM_FAULT_H

#include <linux/types.h>

struct dentry;

enum srpt_fault_point {
	SRPT_FAULT_ALLOC,	/* every allocation the module makes (alloc.c) */
	SRPT_FAULT_CQ_CREATE,	/* ib_cq_pool_get() of a channel */
	SRPT_FAULT_QP_CREATE,	/* ib_create_qp() / rdma_create_qp() */
	SRPT_FAULT_QP_MODIFY,	/* IB/CM: INIT, RTR (before the REP), RTS (after RTU) */
	SRPT_FAULT_SESSION,	/* target_setup_session() */
	SRPT_FAULT_CM_ACCEPT,	/* ib_send_cm_rep() / rdma_accept() */
	SRPT_FAULT_CM_REJECT,	/* ib_send_cm_rej() / rdma_reject() of a login */
	SRPT_FAULT_SRQ_CREATE,	/* ib_create_srq() of a device (use_srq) */
	SRPT_FAULT_CHUNK_LARGE,	/* a ring's try at a 128 KiB chunk (queue.c) */
	SRPT_FAULT_DM_PORT_CAP,	/* ib_modify_port() setting IsDM (dm.c) */
	SRPT_FAULT_DM_AGENT,	/* ib_register_mad_agent() of a DM agent */
	/*
	 * Not a failing call but an event rxe never raises: after a receive
	 * completion, the QP's own event handler gets QP_ACCESS_ERR, or (on an
	 * SRQ) the SRQ's gets SRQ_ERR, as a driver would deliver them.
	 */
	SRPT_FAULT_QP_EVENT,
	SRPT_FAULT_SRQ_EVENT,
	/*
	 * At an IB/CM QP's destruction, after its cm_id is gone: the QP's
	 * handler gets COMM_EST, as a driver that raised it while the QP
	 * was still in RTR may deliver it late.
	 */
	SRPT_FAULT_QP_EVENT_LATE,
	/*
	 * A QP on an SRQ: its Last WQE Reached event is held back and
	 * delivered 300 ms later, as a device raises it when its receive
	 * side next runs in the error state (rxe: a task that may be busy
	 * with a request the QP took before the error). Teardown must wait
	 * for it (queue.c, srpt_k_qp_drain_srq()).
	 */
	SRPT_FAULT_LAST_WQE_LATE,
	/*
	 * A chain of RDMA requests (with or without the response behind it)
	 * goes in part: its first request is posted, the rest reported
	 * refused (cmd.c, srpt_k_post_chain()).
	 */
	SRPT_FAULT_CHAIN_BREAK,
	SRPT_FAULT_POINT_COUNT,
};

/*
 * True when this call must fail: the point was armed with N and this is the
 * Nth call since. Any context (atomics only).
 */
bool srpt_fault_hit(enum srpt_fault_point point);

/* Creates ib_srpt/fault in `dir` (best effort, as debugfs always is). */
void srpt_fault_debugfs_create(struct dentry *dir);
/* Frees what "hold N" keeps; at module exit, before the leak check. */
void srpt_fault_exit(void);

#endif /* SRPT_SHIM_FAULT_H */
