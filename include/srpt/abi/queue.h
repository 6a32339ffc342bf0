/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A channel's queues: one completion queue and one RC queue pair (struct
 * srpt_k_qp), and rings of DMA-mapped information-unit buffers.
 *
 * Completions are delivered in process context (the CQ polls from a work
 * queue), one call per work request, to the channel given at creation.
 */
#ifndef SRPT_ABI_QUEUE_H
#define SRPT_ABI_QUEUE_H

#include <srpt/abi/cm.h>
#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

struct srpt_qp_params {
	/*
	 * Send queue work requests (responses, RDMA reads and writes, table
	 * reads) the core may have posted at once. In: what it asks for; out
	 * (srpt_k_qp_create): what it got, lowered to the device's limit.
	 */
	uint32_t send_depth;
	/*
	 * Request IUs: the QP's own receive queue, or with `srq` the receive
	 * completions of this QP the CQ must hold (every buffer of the SRQ).
	 */
	uint32_t recv_depth;
	struct srpt_core_chan *ctx;	/* the channel, for completions */
	uint16_t pkey;		/* IB/CM: the login's (srpt_login_event.pkey) */
	/* Non-NULL: the QP takes its receives from this SRQ, has no RQ. */
	struct srpt_k_srq *srq;
};

/*
 * Creates the CQ (from the device's CQ pool) and the QP. IB/CM: the QP is
 * left in INIT; RDMA/CM: it is attached to the cm_id, whose accept moves it.
 */
int srpt_k_qp_create(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     struct srpt_k_device *kdev, uint32_t port_num,
		     struct srpt_qp_params *params,
		     struct srpt_k_qp **out) SRPT_NOEXCEPT;
/* IB/CM after RTU: RTS (non-zero once srpt_k_qp_error() ran). */
int srpt_k_qp_ready(struct srpt_k_qp *qp) SRPT_NOEXCEPT;
/*
 * Moves the QP to the error state: every posted request completes, flushed.
 * IB/CM: the QP forgets its cm_id (QP events no longer reach it), so the
 * cm_id may be destroyed before the QP from here on.
 */
int srpt_k_qp_error(struct srpt_k_qp *qp) SRPT_NOEXCEPT;
/*
 * Waits until every posted request has completed (ib_drain_qp), then
 * destroys the QP and returns the CQ. Process context, not a completion
 * callback of this QP (those deliver the drain). RDMA/CM: before the cm_id
 * is destroyed (rdma_destroy_qp() and QP events use it); IB/CM: before it,
 * or after it once srpt_k_qp_error() ran.
 */
void srpt_k_qp_destroy(struct srpt_k_qp *qp) SRPT_NOEXCEPT;

/* `count` buffers of `size` bytes, DMA-mapped for the device. */
struct srpt_k_ring;
enum srpt_ring_dir {
	SRPT_RING_RECV = 1,	/* device writes, CPU reads */
	SRPT_RING_SEND = 2,	/* CPU writes, device reads */
};
/*
 * `align_at`: an offset inside each buffer that must fall on a 512-byte
 * boundary (0: none). Receive rings pass the immediate-data offset, so that
 * write data handed to the target core in place is sector-aligned: backends
 * such as null_blk's memory mode assume sector-aligned segments.
 */
int srpt_k_ring_create(struct srpt_k_device *kdev, uint32_t count,
		       uint32_t size, uint32_t align_at, enum srpt_ring_dir dir,
		       struct srpt_k_ring **out) SRPT_NOEXCEPT;
uint8_t *srpt_k_ring_buf(struct srpt_k_ring *ring, uint32_t index) SRPT_NOEXCEPT;
void srpt_k_ring_destroy(struct srpt_k_ring *ring) SRPT_NOEXCEPT;

/* Posts ring[index] to receive; completes in srpt_core_recv_done(). */
int srpt_k_post_recv(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
		     uint32_t index) SRPT_NOEXCEPT;
/* Sends the first `len` bytes of ring[index]; completes in srpt_core_send_done(). */
int srpt_k_post_send(struct srpt_k_qp *qp, struct srpt_k_ring *ring,
		     uint32_t index, uint32_t len) SRPT_NOEXCEPT;

/*
 * A shared receive queue of one RDMA device, with its own ring of `count`
 * receive buffers of `size` bytes (align_at as for srpt_k_ring_create), all
 * posted when it is made. A receive completes on the CQ of the QP the IU
 * arrived on, through srpt_core_recv_done() with that QP's ctx and the
 * buffer's index in this ring.
 *
 * Destroy only when no QP uses it any more (every QP made with it is
 * destroyed). Buffers taken by a receive are the core's until it posts
 * them again with srpt_k_srq_post_recv().
 */
struct srpt_k_srq;
struct srpt_core_srq;	/* the core's SRQ, given back with its events */
/*
 * *count: in, the buffers asked for; out, what the device allowed. `ctx` is
 * given back in srpt_core_srq_event().
 */
int srpt_k_srq_create(struct srpt_k_device *kdev, uint32_t *count,
		      uint32_t size, uint32_t align_at,
		      struct srpt_core_srq *ctx,
		      struct srpt_k_srq **out) SRPT_NOEXCEPT;
struct srpt_k_ring *srpt_k_srq_ring(struct srpt_k_srq *srq) SRPT_NOEXCEPT;
int srpt_k_srq_post_recv(struct srpt_k_srq *srq, uint32_t index) SRPT_NOEXCEPT;
void srpt_k_srq_destroy(struct srpt_k_srq *srq) SRPT_NOEXCEPT;

/*
 * Asynchronous events of an SRQ. ERR: the SRQ is in the error state and
 * receives nothing any more. LIMIT_REACHED: fewer buffers are posted than
 * an armed limit (the core arms none).
 */
enum srpt_srq_event {
	SRPT_SRQ_EVENT_ERR = 0,
	SRPT_SRQ_EVENT_LIMIT_REACHED = 1,
};
/*
 * An event of the SRQ made with `ctx`, from the device driver's event
 * context, which may be atomic: must not sleep. Never after
 * srpt_k_srq_destroy() returned.
 */
void srpt_core_srq_event(struct srpt_core_srq *ctx,
			 enum srpt_srq_event ev) SRPT_NOEXCEPT;

/*
 * Asynchronous QP events other than those the shim handles itself
 * (communication established, Last WQE Reached), as the core tells them
 * apart; `name` is the kernel's text for the event (ib_event_msg()).
 */
enum srpt_qp_event {
	SRPT_QP_EV_FATAL = 1,		/* IB_EVENT_QP_FATAL */
	SRPT_QP_EV_REQ_ERR = 2,		/* IB_EVENT_QP_REQ_ERR */
	SRPT_QP_EV_ACCESS_ERR = 3,	/* IB_EVENT_QP_ACCESS_ERR */
	SRPT_QP_EV_PATH_MIG_ERR = 4,	/* IB_EVENT_PATH_MIG_ERR */
	SRPT_QP_EV_OTHER = 5,		/* any other QP event */
};
/* From the QP's event handler: any context, atomic included. */
void srpt_core_qp_event(struct srpt_core_chan *ch, enum srpt_qp_event ev,
			const char *name) SRPT_NOEXCEPT;

/* ok: 1 on success, 0 on error or flush. byte_len only when ok. */
void srpt_core_recv_done(struct srpt_core_chan *ch, uint32_t index,
			 uint32_t byte_len, int ok) SRPT_NOEXCEPT;
void srpt_core_send_done(struct srpt_core_chan *ch, uint32_t index,
			 int ok) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_QUEUE_H */
