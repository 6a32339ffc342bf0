/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's own kernel objects behind the opaque handles of the C ABI
 * (include/srpt/abi/). Only the shim's C files include this header; the core
 * sees nothing but incomplete struct pointers.
 */
#ifndef SRPT_SHIM_OBJECTS_H
#define SRPT_SHIM_OBJECTS_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>

#include <srpt/abi/cm.h>
#include <srpt/abi/device.h>
#include <srpt/abi/fabric.h>
#include <srpt/abi/queue.h>

/*
 * One RDMA device as the shim serves it: the ib_client's client data and the
 * handle (struct srpt_k_device *) the core holds.
 *
 * Lifetime: created in the ib_client add callback, the ib_client's reference
 * is dropped at the end of the remove callback. A CM callback that finds the
 * device through ib_get_client_data() takes a reference under RCU
 * (srpt_shim_device_get()), so the memory outlives the callback even if the
 * remove callback runs concurrently; the memory is freed after an RCU grace
 * period. The PD lives from add (before srpt_core_device_add()) until remove
 * (after srpt_core_device_remove()): the core never uses the device outside
 * that window, so nothing created on the PD outlives it.
 */
struct srpt_k_device {
	struct ib_device *ib_dev;
	struct ib_pd *pd;
	struct srpt_core_device *core;
	struct kref ref;
	struct rcu_head rcu;
	/*
	 * Registered before the ports are read, so that no event is lost
	 * between that reading and the core taking the device; unregistered
	 * before the core lets it go (ib_client.c).
	 */
	struct ib_event_handler event_handler;
	/*
	 * Ports (bit port_num; bit 0: any port) with an event before the
	 * core took the device, for ib_client.c to hand over once it has.
	 */
	unsigned long early_events;
	/*
	 * Set once a QP of this device raised Last WQE Reached: the device is
	 * known to raise it (rxe does on 6.12 and 7.3, not on 6.1).
	 */
	bool raises_last_wqe;
};

/* A reference on the device the CM id belongs to, or NULL. Any context. */
struct srpt_k_device *srpt_shim_device_get(struct ib_device *ib_dev);
void srpt_shim_device_put(struct srpt_k_device *kdev);

/* A channel's CQ and QP (include/srpt/abi/queue.h). */
struct srpt_k_qp {
	enum srpt_cm_kind kind;
	/*
	 * IB/CM: cm.ib is cleared under cm_lock by srpt_k_qp_error(), which
	 * the core calls before it destroys the cm_id (and the QP after it):
	 * the QP event handler then no longer reaches the cm_id.
	 */
	spinlock_t cm_lock;
	union {
		struct ib_cm_id *ib;
		struct rdma_cm_id *rdma;
	} cm;
	struct srpt_k_device *kdev;
	u32 port_num;
	u16 pkey;			/* IB/CM: for the INIT transition */
	struct srpt_core_chan *ctx;	/* the core's channel */
	struct ib_cq *cq;
	unsigned int cq_size;		/* as passed to ib_cq_pool_get() */
	struct ib_qp *ib_qp;
	/* On an SRQ: completed by the QP's Last WQE Reached event. */
	struct completion last_wqe;
	/*
	 * The last_wqe_late fault point (fault.h): the event, held back and
	 * delivered from this work.
	 */
	struct delayed_work late_wqe;
	unsigned long flags;
};
/* srpt_k_qp.flags: Last WQE Reached was delivered; it was held back. */
#define SRPT_K_QP_WQE_SEEN	0
#define SRPT_K_QP_WQE_HELD	1

/*
 * Completions of a channel's CQ are delivered by the CQ's poll work only
 * (IB_POLL_WORKQUEUE, from the device's shared pool), one at a time per CQ,
 * across every channel that shares it: the core's completion handlers rely
 * on it. Anything else polling the CQ (ib_drain_qp() does for a QP on an
 * SRQ from 6.11) would run them concurrently; each handler checks.
 */
static inline void srpt_k_cq_context_check(struct ib_cq *cq)
{
	WARN_ON_ONCE(current_work() != &cq->work);
}

/*
 * ib_modify_qp() for the transitions of a login (IB/CM: INIT, RTR, RTS), with
 * the fault injection point qp_modify. Not for the move to the error state.
 */
int srpt_shim_modify_qp(struct srpt_k_qp *qp, struct ib_qp_attr *attr,
			int mask);

/* One DMA-mapped information-unit buffer of a ring. */
struct srpt_k_ring_entry {
	struct ib_cqe cqe;		/* .done: recv or send completion */
	struct srpt_k_ring *ring;
	void *buf;			/* the IU, inside one of ring->chunks */
	u64 dma;
	u32 index;
};

struct srpt_k_ring {
	struct ib_device *ib_dev;
	u32 lkey;			/* the device PD's local_dma_lkey */
	u32 count;
	u32 size;
	enum srpt_ring_dir dir;
	enum dma_data_direction dma_dir;
	void **chunks;			/* what kmalloc returned, n_chunks */
	u32 n_chunks;
	struct srpt_k_ring_entry ent[];
};

/*
 * Checks ring[index] for a send of `len` bytes, hands the buffer to the
 * device and fills a signalled IB_WR_SEND whose completion calls
 * srpt_core_send_done(). The caller posts it (possibly behind RDMA WRs).
 */
int srpt_shim_prep_send(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
			u32 index, u32 len, struct ib_send_wr *wr,
			struct ib_sge *sge);

/* A device's shared receive queue and its buffers (queue.h). */
struct srpt_k_srq {
	struct ib_srq *ib_srq;
	struct srpt_k_ring *ring;
};

/* The target-core portal group of a TPG directory. */
struct srpt_k_tpg {
	struct se_portal_group se_tpg;
	struct srpt_core_tpg *core;
};

/* The core's command of a target-core command (cmd.c). */
struct srpt_core_cmd *srpt_shim_cmd_ctx(struct se_cmd *se_cmd);
/* release_cmd: frees the RDMA contexts left, then tells the core. */
void srpt_shim_cmd_release(struct se_cmd *se_cmd);

#endif /* SRPT_SHIM_OBJECTS_H */
