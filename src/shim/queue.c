// SPDX-License-Identifier: GPL-2.0
/*
 * A channel's CQ, QP and IU rings: include/srpt/abi/queue.h.
 *
 * The CQ comes from the device's CQ pool and polls from a work queue
 * (IB_POLL_WORKQUEUE), so every completion below runs in process context,
 * one at a time per CQ. A completion finds its channel through the QP
 * (wc->qp->qp_context is the struct srpt_k_qp) and its buffer through the
 * ring entry that embeds the ib_cqe.
 *
 * Queue sizes: besides the core's send_depth and recv_depth, each queue gets
 * one slot for the drain work request of ib_drain_qp(). The core counts
 * every work request it posts, RDMA ones included (rdma_rw_ctx_init()
 * returns how many a context takes), so the send queue is made to hold
 * send_depth + 1 in all: rdma_rw_init_qp() adds factor x max_rdma_ctxs
 * slots to cap.max_send_wr by itself, and those are taken out of what is
 * asked for here rather than added on top. The CQ holds a completion for
 * every work request the QP can hold, because a QP in the error state
 * flushes them all, signalled or not.
 */
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include <srpt/abi/queue.h>
#include "counters.h"
#include "srpt_compat.h"
#include "fault.h"
#include "objects.h"
#include "shim.h"

#define SRPT_K_MAX_SEND_SGE	16

/*
 * Send-queue slots rdma_rw_init_qp() adds to a QP per rdma_rw context: one
 * for the RDMA READ or WRITE, two more (registration and invalidation) on a
 * device whose RDMA goes through memory registration (iWARP, or one that
 * reports max_sgl_rd). Where rdma_rw_max_send_wr() is missing, the same rule
 * is applied here; the rdma_rw_force_mr debug parameter is invisible to a
 * module, and with it set the QP only gets more slots than counted.
 */
static u32 srpt_k_rw_factor(struct ib_device *ib_dev, u32 port_num)
{
#ifdef SRPT_HAVE_RDMA_RW_MAX_SEND_WR
	return rdma_rw_max_send_wr(ib_dev, port_num, 1, 0);
#else
	if (rdma_protocol_iwarp(ib_dev, port_num) || ib_dev->attrs.max_sgl_rd)
		return 3;
	return 1;
#endif
}

/* --- QP ----------------------------------------------------------------- */

/*
 * How long the teardown of a QP on an SRQ waits for Last WQE Reached on a
 * device expected to raise it. The QP is in the error state by then, and
 * such a device raises the event once its receive side has finished what it
 * took before the error (rxe: from its receive task, which under TCG on a
 * loaded host can be seconds behind). ib_drain_qp() waits up to a minute.
 */
#define SRPT_K_LAST_WQE_TIMEOUT	(10 * HZ)

/*
 * Whether this QP's teardown waits for Last WQE Reached. Where the RDMA
 * core relies on the event (ib_drain_qp() waits for it from 6.11, when rxe
 * began to raise it), every device is expected to raise it, the first QP
 * of a device too: deciding by "raised it before" let the first QPs on a
 * device's SRQ go before their event, with receive completions still on
 * their way (guest case 56). On older kernels (rxe on 6.1 never raises it)
 * only a device that raised it before, or this QP if it already did.
 */
static bool srpt_k_qp_expects_last_wqe(struct srpt_k_qp *qp)
{
#ifdef SRPT_HAVE_QP_SRQ_COMPLETION
	return true;
#else
	return READ_ONCE(qp->kdev->raises_last_wqe) ||
	       test_bit(SRPT_K_QP_WQE_SEEN, &qp->flags);
#endif
}

static enum srpt_qp_event srpt_k_qp_event_kind(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_QP_FATAL:
		return SRPT_QP_EV_FATAL;
	case IB_EVENT_QP_REQ_ERR:
		return SRPT_QP_EV_REQ_ERR;
	case IB_EVENT_QP_ACCESS_ERR:
		return SRPT_QP_EV_ACCESS_ERR;
	case IB_EVENT_PATH_MIG_ERR:
		return SRPT_QP_EV_PATH_MIG_ERR;
	default:
		return SRPT_QP_EV_OTHER;
	}
}

/* Last WQE Reached: no receive completion of the QP comes after it. */
static void srpt_k_qp_last_wqe(struct srpt_k_qp *qp)
{
	WRITE_ONCE(qp->kdev->raises_last_wqe, true);
	set_bit(SRPT_K_QP_WQE_SEEN, &qp->flags);
	complete(&qp->last_wqe);
}

/* The held-back event (SRPT_FAULT_LAST_WQE_LATE). */
static void srpt_k_qp_late_wqe_fn(struct work_struct *work)
{
	struct srpt_k_qp *qp = container_of(to_delayed_work(work),
					    struct srpt_k_qp, late_wqe);

	srpt_k_qp_last_wqe(qp);
}

/*
 * QP events, in the driver's event context (may be atomic): every other
 * event goes to the core (SAFETY: the QP, and so this handler, goes before
 * the channel that is its context), and communication
 * established, for a request that arrives before the RTU (both notify calls
 * only take spinlocks and queue work), and Last WQE Reached, which
 * srpt_k_qp_destroy() waits for.
 */
static void srpt_k_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_k_qp *qp = ptr;
	unsigned long flags;

	if (event->event == IB_EVENT_QP_LAST_WQE_REACHED) {
		/* Once held back, every repeat of the event is the work's. */
		if (test_bit(SRPT_K_QP_WQE_HELD, &qp->flags))
			return;
		if (srpt_fault_hit(SRPT_FAULT_LAST_WQE_LATE)) {
			set_bit(SRPT_K_QP_WQE_HELD, &qp->flags);
			schedule_delayed_work(&qp->late_wqe,
					      msecs_to_jiffies(300));
			return;
		}
		srpt_k_qp_last_wqe(qp);
		return;
	}
	if (event->event != IB_EVENT_COMM_EST) {
		srpt_core_qp_event(qp->ctx, srpt_k_qp_event_kind(event->event),
				   ib_event_msg(event->event));
		return;
	}
	if (qp->kind == SRPT_CM_RDMA) {
		/* SAFETY: an RDMA/CM QP is destroyed before its cm id (queue.h). */
		rdma_notify(qp->cm.rdma, event->event);
		return;
	}
	/*
	 * SAFETY: an IB/CM channel's cm id goes before its QP, but only after
	 * srpt_k_qp_error() cleared cm.ib under cm_lock (queue.h).
	 */
	spin_lock_irqsave(&qp->cm_lock, flags);
	if (qp->cm.ib)
		ib_cm_notify(qp->cm.ib, event->event);
	spin_unlock_irqrestore(&qp->cm_lock, flags);
}

int srpt_shim_modify_qp(struct srpt_k_qp *qp, struct ib_qp_attr *attr,
			int mask)
{
	if (srpt_fault_hit(SRPT_FAULT_QP_MODIFY))
		return -EIO;
	return ib_modify_qp(qp->ib_qp, attr, mask);
}

/* IB/CM: RESET to INIT, on the login's P_Key. */
static int srpt_k_qp_init(struct srpt_k_qp *qp)
{
	struct ib_qp_attr attr = {};
	int ret;

	ret = ib_find_cached_pkey(qp->kdev->ib_dev, qp->port_num, qp->pkey,
				  &attr.pkey_index);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = qp->port_num;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_WRITE;
	return srpt_shim_modify_qp(qp, &attr,
				   IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
				   IB_QP_ACCESS_FLAGS);
}

int srpt_k_qp_create(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     struct srpt_k_device *kdev, uint32_t port_num,
		     struct srpt_qp_params *params,
		     struct srpt_k_qp **out)
{
	struct ib_device *ib_dev = kdev->ib_dev;
	struct ib_qp_init_attr init = {};
	u32 send_wr, recv_wr, rdma_ctxs, factor, max_depth;
	struct srpt_k_qp *qp;
	int ret;

	if (!params->send_depth || !params->recv_depth)
		return -EINVAL;


	qp = srpt_shim_kmalloc(sizeof(*qp), GFP_KERNEL | __GFP_ZERO);
	if (!qp)
		return -ENOMEM;
	qp->kind = kind;
	spin_lock_init(&qp->cm_lock);
	if (kind == SRPT_CM_IB)
		qp->cm.ib = (struct ib_cm_id *)cm;
	else
		qp->cm.rdma = (struct rdma_cm_id *)cm;
	qp->kdev = kdev;
	qp->port_num = port_num;
	qp->pkey = params->pkey;
	qp->ctx = params->ctx;
	init_completion(&qp->last_wqe);
	INIT_DELAYED_WORK(&qp->late_wqe, srpt_k_qp_late_wqe_fn);

	/* + 1: the drain request; lowered to what the device allows. */
	max_depth = (u32)ib_dev->attrs.max_qp_wr - 1;
	if (params->send_depth > max_depth)
		params->send_depth = max_depth;
	/*
	 * rdma_rw reserves `factor` send slots per context (1, or 3 with
	 * memory registration, whose MR pool has one MR per context). The
	 * contexts get the depth's worth of slots, the remainder and the
	 * drain request come from cap.max_send_wr.
	 */
	factor = srpt_k_rw_factor(ib_dev, port_num);
	if (WARN_ON_ONCE(!factor)) {
		ret = -EINVAL;
		goto err_free;
	}
	rdma_ctxs = params->send_depth / factor;
	send_wr = params->send_depth - rdma_ctxs * factor + 1;
	/*
	 * + 1: the receive drain request. With an SRQ the CQ still gets this
	 * QP's receive completions, up to recv_depth (the core passes the
	 * SRQ's size); the QP has no RQ, and ib_drain_qp() drains only its SQ.
	 * ib_cq_pool_get() never finds a CQ larger than max_cqe, and makes new
	 * ones of that size until an allocation fails: the core refuses such
	 * a login first (Channel::create); this only keeps the loop away.
	 */
	if (check_add_overflow(params->recv_depth, 1U, &recv_wr) ||
	    check_add_overflow(params->send_depth + 1, recv_wr, &qp->cq_size) ||
	    qp->cq_size > (u32)ib_dev->attrs.max_cqe) {
		ret = -EINVAL;
		goto err_free;
	}

	if (srpt_fault_hit(SRPT_FAULT_CQ_CREATE))
		qp->cq = ERR_PTR(-ENOMEM);
	else
		qp->cq = ib_cq_pool_get(ib_dev, qp->cq_size, -1,
					IB_POLL_WORKQUEUE);
	if (IS_ERR(qp->cq)) {
		ret = PTR_ERR(qp->cq);
		goto err_free;
	}
	srpt_count_inc(SRPT_CNT_CQS);

	init.event_handler = srpt_k_qp_event;
	init.qp_context = qp;
	init.send_cq = qp->cq;
	init.recv_cq = qp->cq;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_wr = send_wr;
	init.cap.max_rdma_ctxs = rdma_ctxs;
	init.cap.max_send_sge = min_t(u32, ib_dev->attrs.max_send_sge,
				      SRPT_K_MAX_SEND_SGE);
	if (params->srq) {
		init.srq = params->srq->ib_srq;
	} else {
		init.cap.max_recv_wr = recv_wr;
		init.cap.max_recv_sge = 1;
	}
	init.port_num = port_num;

	if (srpt_fault_hit(SRPT_FAULT_QP_CREATE)) {
		ret = -ENOMEM;
		goto err_cq;
	}
	if (kind == SRPT_CM_RDMA) {
		/* Attaches the QP to the id and moves it to INIT. */
		ret = rdma_create_qp(qp->cm.rdma, kdev->pd, &init);
		if (ret)
			goto err_cq;
		qp->ib_qp = qp->cm.rdma->qp;
	} else {
		qp->ib_qp = ib_create_qp(kdev->pd, &init);
		if (IS_ERR(qp->ib_qp)) {
			ret = PTR_ERR(qp->ib_qp);
			goto err_cq;
		}
		ret = srpt_k_qp_init(qp);
		if (ret)
			goto err_qp;
	}
	srpt_count_inc(SRPT_CNT_QPS);

	*out = qp;
	return 0;

err_qp:
	ib_destroy_qp(qp->ib_qp);
err_cq:
	ib_cq_pool_put(qp->cq, qp->cq_size);
	srpt_count_dec(SRPT_CNT_CQS);
err_free:
	srpt_shim_kfree(qp);
	return ret;
}

int srpt_k_qp_ready(struct srpt_k_qp *qp)
{
	struct ib_qp_attr attr = {};
	struct ib_cm_id *cm;
	unsigned long flags;
	int mask;
	int ret;

	/* RDMA/CM moved the QP to RTS in rdma_accept(). */
	if (qp->kind == SRPT_CM_RDMA)
		return 0;

	spin_lock_irqsave(&qp->cm_lock, flags);
	cm = qp->cm.ib;
	spin_unlock_irqrestore(&qp->cm_lock, flags);
	/* The channel is closing (srpt_k_qp_error() ran). */
	if (!cm)
		return -ENOTCONN;
	attr.qp_state = IB_QPS_RTS;
	/*
	 * SAFETY: called from the RTU callback of this cm id, which its
	 * destruction waits for.
	 */
	ret = ib_cm_init_qp_attr(cm, &attr, &mask);
	if (ret)
		return ret;
	return srpt_shim_modify_qp(qp, &attr, mask);
}

int srpt_k_qp_error(struct srpt_k_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned long flags;

	if (qp->kind == SRPT_CM_IB) {
		spin_lock_irqsave(&qp->cm_lock, flags);
		qp->cm.ib = NULL;
		spin_unlock_irqrestore(&qp->cm_lock, flags);
	}

	return ib_modify_qp(qp->ib_qp, &attr, IB_QP_STATE);
}

/*
 * Waits until every receive completion of a QP on an SRQ was delivered, as
 * the IB specification asks before a QP on an SRQ is destroyed (10.3.1):
 * in the error state, the QP raises Last WQE Reached once it will complete
 * no further receive; then a send work request posted to it is flushed to
 * the same CQ behind all of them, and the CQ's work delivers completions in
 * order, so ib_drain_sq() returns after the last one.
 *
 * Not every device raises the event on every kernel (rxe on 6.1 does not):
 * srpt_k_qp_expects_last_wqe() says when to wait; the others get the send
 * queue drain alone, as every kernel before 6.11 and in-tree srpt do.
 *
 * Not ib_drain_qp(): from 6.11 it waits for the event (up to a minute) and
 * then polls the CQ itself (ib_process_cq_direct()), and our CQ comes from
 * the device's shared pool and is polled by a work queue: completions of
 * every channel sharing it would run in two contexts at once.
 */
static void srpt_k_qp_drain_srq(struct srpt_k_qp *qp)
{
	/* Idempotent: the core normally moved it to the error state already. */
	srpt_k_qp_error(qp);
	if (srpt_k_qp_expects_last_wqe(qp) &&
	    !wait_for_completion_timeout(&qp->last_wqe, SRPT_K_LAST_WQE_TIMEOUT))
		pr_warn_ratelimited("QP %u: no Last WQE Reached event after %u ms; draining the send queue anyway\n",
				    qp->ib_qp->qp_num,
				    jiffies_to_msecs(SRPT_K_LAST_WQE_TIMEOUT));
	ib_drain_sq(qp->ib_qp);
}

/*
 * Counts (and warns about) a QP on an SRQ about to be destroyed before its
 * Last WQE Reached event, where the RDMA core relies on the event: a
 * receive completion may still be on its way to the shared CQ, for a QP,
 * a channel and maybe an SRQ that are gone when the CQ's work delivers it.
 * Guest case 56 and every module exit (counters.h) check the count.
 */
static void srpt_k_qp_check_last_wqe(struct srpt_k_qp *qp)
{
#ifdef SRPT_HAVE_QP_SRQ_COMPLETION
	/* Not completion_done(): the teardown's wait consumed the completion. */
	if (test_bit(SRPT_K_QP_WQE_SEEN, &qp->flags))
		return;
	srpt_count_inc(SRPT_CNT_SRQ_QP_EARLY);
	pr_warn_ratelimited("QP %u on a shared receive queue destroyed before its Last WQE Reached event\n",
			    qp->ib_qp->qp_num);
#endif
}

/* Calls the QP's own event handler with `type`, as the driver would. */
static void srpt_k_raise_qp_event(struct ib_qp *ib_qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = ib_qp->device,
		.element.qp = ib_qp,
		.event = type,
	};

	ib_qp->event_handler(&ev, ib_qp->qp_context);
}

void srpt_k_qp_destroy(struct srpt_k_qp *qp)
{
	/*
	 * An IB/CM channel's cm_id is destroyed by now (queue.h): a late
	 * COMM_EST must not reach it (fault.h, guest case 30). ib_cm frees a
	 * destroyed cm_id with kfree_rcu(), seconds later on 6.12, so the
	 * event waits until that has happened: then a handler that touched
	 * the cm_id would touch freed memory, which KASAN reports. Without
	 * kvfree_rcu_barrier() (before 6.12) the wait is a grace period only.
	 */
	if (qp->kind == SRPT_CM_IB &&
	    srpt_fault_hit(SRPT_FAULT_QP_EVENT_LATE)) {
#ifdef SRPT_HAVE_KVFREE_RCU_BARRIER
		kvfree_rcu_barrier();
#else
		synchronize_rcu();
#endif
		srpt_k_raise_qp_event(qp->ib_qp, IB_EVENT_COMM_EST);
	}

	/*
	 * SAFETY: process context, and not a completion handler of this CQ:
	 * the drains wait for their drain completions, which the CQ's poll
	 * work delivers. When they return, every posted request has completed
	 * (srpt_core_*_done() was called for each).
	 *
	 * Buffers of the SRQ that no IU landed in stay posted on the SRQ:
	 * nothing flushes them.
	 */
	if (qp->ib_qp->srq)
		srpt_k_qp_drain_srq(qp);
	else
		ib_drain_qp(qp->ib_qp);

	if (qp->ib_qp->srq)
		srpt_k_qp_check_last_wqe(qp);

	if (qp->kind == SRPT_CM_RDMA)
		/* Also clears id->qp, which rdma_cm uses on later events. */
		rdma_destroy_qp(qp->cm.rdma);
	else
		ib_destroy_qp(qp->ib_qp);
	/* No event comes after the destroy: a held-back one goes with it. */
	cancel_delayed_work_sync(&qp->late_wqe);
	srpt_count_dec(SRPT_CNT_QPS);
	ib_cq_pool_put(qp->cq, qp->cq_size);
	srpt_count_dec(SRPT_CNT_CQS);
	srpt_shim_kfree(qp);
}

/* --- rings -------------------------------------------------------------- */

/*
 * The fault points that stand in for asynchronous events rxe never raises
 * (fault.h): the QP's or its SRQ's own handler is called, as the driver
 * would call it.
 */
static void srpt_k_inject_events(struct ib_qp *ib_qp)
{
	struct ib_event ev = { .device = ib_qp->device };

	if (srpt_fault_hit(SRPT_FAULT_QP_EVENT))
		srpt_k_raise_qp_event(ib_qp, IB_EVENT_QP_ACCESS_ERR);
	if (ib_qp->srq && srpt_fault_hit(SRPT_FAULT_SRQ_EVENT)) {
		ev.event = IB_EVENT_SRQ_ERR;
		ev.element.srq = ib_qp->srq;
		ib_qp->srq->event_handler(&ev, ib_qp->srq->srq_context);
	}
}

static void srpt_k_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_k_ring_entry *ent =
		container_of(wc->wr_cqe, struct srpt_k_ring_entry, cqe);
	/* SAFETY: the QP outlives its completions (srpt_k_qp_destroy()). */
	struct srpt_k_qp *qp = wc->qp->qp_context;
	struct srpt_k_ring *ring = ent->ring;
	u32 byte_len = 0;
	int ok = wc->status == IB_WC_SUCCESS;

	srpt_k_cq_context_check(cq);
	if (ok) {
		byte_len = min(wc->byte_len, ring->size);
		/* The CPU may read what the device wrote. */
		ib_dma_sync_single_for_cpu(ring->ib_dev, ent->dma, byte_len,
					   DMA_FROM_DEVICE);
	}
	srpt_core_recv_done(qp->ctx, ent->index, byte_len, ok);
	/* SAFETY: the QP outlives its completions, as above. */
	srpt_k_inject_events(wc->qp);
}

static void srpt_k_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_k_ring_entry *ent =
		container_of(wc->wr_cqe, struct srpt_k_ring_entry, cqe);
	/* SAFETY: the QP outlives its completions (srpt_k_qp_destroy()). */
	struct srpt_k_qp *qp = wc->qp->qp_context;

	srpt_k_cq_context_check(cq);
	srpt_core_send_done(qp->ctx, ent->index, wc->status == IB_WC_SUCCESS);
}

static void srpt_k_ring_free(struct srpt_k_ring *ring, u32 mapped)
{
	u32 i;

	for (i = mapped; i-- > 0;)
		ib_dma_unmap_single(ring->ib_dev, ring->ent[i].dma, ring->size,
				    ring->dma_dir);
	for (i = ring->n_chunks; i-- > 0;)
		srpt_shim_kfree(ring->chunks[i]);
	srpt_shim_kfree(ring->chunks);
	srpt_shim_kfree(ring);
}

/* Slack for placing the IU so that buf + align_at is 512-byte aligned. */
#define SRPT_RING_ALIGN 512
/*
 * Buffers are carved out of chunks of at most this size, the largest
 * allocation the page allocator still treats as cheap (order 3), and each
 * is DMA-mapped on its own. Allocated one by one, an IU of ib_srp's default
 * 8260 bytes (plus alignment) would cost a 16 KiB allocation; three share a
 * 32 KiB chunk instead.
 */
#define SRPT_RING_CHUNK (PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)
/*
 * Some sizes pack much better into a larger chunk: an aligned 8260-byte IU
 * takes 8704 bytes, so three fill 81% of 32 KiB and fifteen fill all of
 * 128 KiB (a 64-buffer ring: 560 KiB instead of 704, every byte of which
 * init_on_alloc zeroes during the login). Such rings take 128 KiB chunks
 * while the page allocator has them free (srpt_shim_kmalloc_if_free()), and
 * 32 KiB chunks for the rest, so memory pressure or fragmentation never
 * fails or stalls a login for the sake of packing.
 */
#define SRPT_RING_CHUNK_LARGE (SRPT_RING_CHUNK * 4)

/* Buffers of `stride` bytes (plus `slack` once) in a chunk of `chunk` bytes. */
static size_t srpt_k_ring_per_chunk(size_t chunk, size_t stride, size_t slack)
{
	return stride + slack <= chunk ? (chunk - slack) / stride : 1;
}

int srpt_k_ring_create(struct srpt_k_device *kdev, uint32_t count,
		       uint32_t size, uint32_t align_at, enum srpt_ring_dir dir,
		       struct srpt_k_ring **out)
{
	size_t lead = align_at ? (SRPT_RING_ALIGN - align_at % SRPT_RING_ALIGN) %
					 SRPT_RING_ALIGN : 0;
	size_t slack = align_at ? SRPT_RING_ALIGN : 0;
	size_t stride, per_chunk, per_large, n, j;
	struct srpt_k_ring *ring;
	u32 i, mapped = 0;
	int ret;

	if (!count || !size ||
	    (dir != SRPT_RING_RECV && dir != SRPT_RING_SEND))
		return -EINVAL;
	/*
	 * Buffers the device writes never share a cache line with another
	 * buffer (non-coherent DMA invalidates whole lines); aligned rings
	 * keep every buffer's align_at offset on a 512-byte boundary.
	 */
	stride = ALIGN(lead + size, align_at ? SRPT_RING_ALIGN :
					       dma_get_cache_alignment());
	per_chunk = srpt_k_ring_per_chunk(SRPT_RING_CHUNK, stride, slack);
	per_large = srpt_k_ring_per_chunk(SRPT_RING_CHUNK_LARGE, stride, slack);
	/* Worth it only if a large chunk holds more than four small ones. */
	if (per_large <= 4 * per_chunk)
		per_large = 0;

	ring = srpt_shim_kmalloc(struct_size(ring, ent, count),
				  GFP_KERNEL | __GFP_ZERO);
	if (!ring)
		return -ENOMEM;
	ring->ib_dev = kdev->ib_dev;
	/* SAFETY: the PD lives as long as the core uses kdev (objects.h). */
	ring->lkey = kdev->pd->local_dma_lkey;
	ring->count = count;
	ring->size = size;
	ring->dir = dir;
	ring->dma_dir = dir == SRPT_RING_RECV ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	/* Enough entries for small chunks only, the most there can be. */
	ring->chunks = srpt_shim_kmalloc(array_size(DIV_ROUND_UP(count, per_chunk),
						    sizeof(*ring->chunks)),
					 GFP_KERNEL | __GFP_ZERO);
	if (!ring->chunks) {
		srpt_shim_kfree(ring);
		return -ENOMEM;
	}

	for (i = 0; i < count; i += n) {
		u8 *base = NULL;

		if (per_large && count - i >= per_large) {
			n = per_large;
			base = srpt_shim_kmalloc_if_free(n * stride + slack,
							 SRPT_FAULT_CHUNK_LARGE);
			/* None free now: none for the rest of this ring either. */
			if (!base)
				per_large = 0;
		}
		if (!base) {
			n = min_t(size_t, per_chunk, count - i);
			base = srpt_shim_kmalloc(n * stride + slack, GFP_KERNEL);
			if (!base) {
				ret = -ENOMEM;
				goto err_free;
			}
		}
		ring->chunks[ring->n_chunks++] = base;
		if (align_at)
			base = PTR_ALIGN(base, SRPT_RING_ALIGN);
		for (j = 0; j < n; j++) {
			struct srpt_k_ring_entry *ent = &ring->ent[i + j];

			ent->ring = ring;
			ent->index = i + j;
			ent->cqe.done = dir == SRPT_RING_RECV ? srpt_k_recv_done :
								srpt_k_send_done;
			ent->buf = base + j * stride + lead;
			ent->dma = ib_dma_map_single(ring->ib_dev, ent->buf, size,
						     ring->dma_dir);
			if (ib_dma_mapping_error(ring->ib_dev, ent->dma)) {
				ret = -ENOMEM;
				goto err_free;
			}
			mapped++;
		}
	}

	*out = ring;
	return 0;

err_free:
	srpt_k_ring_free(ring, mapped);
	return ret;
}

uint8_t *srpt_k_ring_buf(struct srpt_k_ring *ring, uint32_t index)
{
	if (WARN_ON_ONCE(index >= ring->count))
		return NULL;
	return ring->ent[index].buf;
}

void srpt_k_ring_destroy(struct srpt_k_ring *ring)
{
	if (!ring)
		return;
	/*
	 * SAFETY: no buffer is posted any more (the QPs it was posted on were
	 * drained and destroyed), and the device is still registered with
	 * the core, so the DMA mappings are still valid to undo.
	 */
	srpt_k_ring_free(ring, ring->count);
}

/*
 * Fills a receive of ring[index] whose completion calls srpt_k_recv_done(),
 * on the QP the IU comes to (also when posted on an SRQ). The buffer goes
 * back to the device after the CPU read it.
 */
static int srpt_k_prep_recv(struct srpt_k_ring *ring, u32 index,
			    struct ib_recv_wr *wr, struct ib_sge *sge)
{
	struct srpt_k_ring_entry *ent;

	if (WARN_ON_ONCE(ring->dir != SRPT_RING_RECV || index >= ring->count))
		return -EINVAL;
	ent = &ring->ent[index];
	ib_dma_sync_single_for_device(ring->ib_dev, ent->dma, ring->size,
				      DMA_FROM_DEVICE);
	sge->addr = ent->dma;
	sge->length = ring->size;
	sge->lkey = ring->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_cqe = &ent->cqe;
	wr->sg_list = sge;
	wr->num_sge = 1;
	return 0;
}

int srpt_k_post_recv(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
		     uint32_t index)
{
	struct ib_recv_wr wr;
	struct ib_sge sge;
	int ret;

	ret = srpt_k_prep_recv(ring, index, &wr, &sge);
	if (ret)
		return ret;
	return ib_post_recv(qp->ib_qp, &wr, NULL);
}

/* --- shared receive queue ---------------------------------------------- */

static int srpt_k_srq_post(struct srpt_k_srq *srq, u32 index)
{
	struct ib_recv_wr wr;
	struct ib_sge sge;
	int ret;

	ret = srpt_k_prep_recv(srq->ring, index, &wr, &sge);
	if (ret)
		return ret;
	return ib_post_srq_recv(srq->ib_srq, &wr, NULL);
}

/*
 * The device driver's context, possibly atomic (a hardware event queue):
 * the core only notes the event.
 */
static void srpt_k_srq_event(struct ib_event *event, void *context)
{
	struct srpt_core_srq *ctx = context;

	switch (event->event) {
	case IB_EVENT_SRQ_ERR:
		srpt_core_srq_event(ctx, SRPT_SRQ_EVENT_ERR);
		break;
	case IB_EVENT_SRQ_LIMIT_REACHED:
		srpt_core_srq_event(ctx, SRPT_SRQ_EVENT_LIMIT_REACHED);
		break;
	default:
		pr_debug("SRQ event %s not followed\n", ib_event_msg(event->event));
		break;
	}
}

int srpt_k_srq_create(struct srpt_k_device *kdev, uint32_t *countp,
		      uint32_t size, uint32_t align_at,
		      struct srpt_core_srq *ctx, struct srpt_k_srq **out)
{
	struct ib_device *ib_dev = kdev->ib_dev;
	struct ib_srq_init_attr init = {};
	struct srpt_k_srq *srq;
	u32 count = *countp;
	u32 i;
	int ret;

	/* As in-tree: never more than the device allows. */
	if (count > (u32)ib_dev->attrs.max_srq_wr)
		count = ib_dev->attrs.max_srq_wr;
	if (!count)
		return -EOPNOTSUPP;

	srq = srpt_shim_kmalloc(sizeof(*srq), GFP_KERNEL | __GFP_ZERO);
	if (!srq)
		return -ENOMEM;

	init.event_handler = srpt_k_srq_event;
	/* SAFETY: the core's SRQ outlives the ib_srq (srpt_k_srq_destroy()). */
	init.srq_context = ctx;
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_wr = count;
	init.attr.max_sge = 1;
	if (srpt_fault_hit(SRPT_FAULT_SRQ_CREATE))
		srq->ib_srq = ERR_PTR(-ENOMEM);
	else
		srq->ib_srq = ib_create_srq(kdev->pd, &init);
	if (IS_ERR(srq->ib_srq)) {
		ret = PTR_ERR(srq->ib_srq);
		goto err_free;
	}
	srpt_count_inc(SRPT_CNT_SRQS);

	ret = srpt_k_ring_create(kdev, count, size, align_at, SRPT_RING_RECV,
				 &srq->ring);
	if (ret)
		goto err_srq;
	for (i = 0; i < count; i++) {
		ret = srpt_k_srq_post(srq, i);
		if (ret)
			goto err_ring;
	}
	*countp = count;
	*out = srq;
	return 0;

err_ring:
	/*
	 * SAFETY: no QP uses the SRQ yet; destroying it drops the posted
	 * receives without completions, so the buffers are free to go.
	 */
	ib_destroy_srq(srq->ib_srq);
	srpt_count_dec(SRPT_CNT_SRQS);
	srpt_k_ring_destroy(srq->ring);
	goto err_free;
err_srq:
	ib_destroy_srq(srq->ib_srq);
	srpt_count_dec(SRPT_CNT_SRQS);
err_free:
	srpt_shim_kfree(srq);
	return ret;
}

struct srpt_k_ring *srpt_k_srq_ring(struct srpt_k_srq *srq)
{
	return srq->ring;
}

int srpt_k_srq_post_recv(struct srpt_k_srq *srq, uint32_t index)
{
	return srpt_k_srq_post(srq, index);
}

void srpt_k_srq_destroy(struct srpt_k_srq *srq)
{
	if (!srq)
		return;
	/*
	 * SAFETY: every QP made on it was destroyed (queue.h), so no receive
	 * can complete any more; the buffers still posted are dropped with
	 * the SRQ, then unmapped.
	 */
	ib_destroy_srq(srq->ib_srq);
	srpt_count_dec(SRPT_CNT_SRQS);
	srpt_k_ring_destroy(srq->ring);
	srpt_shim_kfree(srq);
}

int srpt_shim_prep_send(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
			u32 index, u32 len, struct ib_send_wr *wr,
			struct ib_sge *sge)
{
	struct srpt_k_ring_entry *ent;

	if (WARN_ON_ONCE(ring->dir != SRPT_RING_SEND || index >= ring->count ||
			 !len || len > ring->size))
		return -EINVAL;
	ent = &ring->ent[index];

	/* The device may read what the CPU wrote. */
	ib_dma_sync_single_for_device(ring->ib_dev, ent->dma, len,
				      DMA_TO_DEVICE);
	sge->addr = ent->dma;
	sge->length = len;
	sge->lkey = ring->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_cqe = &ent->cqe;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IB_WR_SEND;
	wr->send_flags = IB_SEND_SIGNALED;
	return 0;
}

int srpt_k_post_send(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
		     uint32_t index, uint32_t len)
{
	struct ib_send_wr wr;
	struct ib_sge sge;
	int ret;

	ret = srpt_shim_prep_send(qp, ring, index, len, &wr, &sge);
	if (ret)
		return ret;
	return ib_post_send(qp->ib_qp, &wr, NULL);
}
