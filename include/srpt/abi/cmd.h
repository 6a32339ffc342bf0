/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCSI commands: the shim owns the target-core object (se_cmd) and the RDMA
 * contexts of each command slot; the core decides what to do with them.
 *
 * Life of a slot's command: srpt_k_cmd_submit() -> target core ->
 * write_pending (core RDMA-reads the data, then srpt_k_cmd_execute()) ->
 * queue_data_in / queue_status (core builds the SRP_RSP and sends it, after
 * RDMA-writing read data) -> send completion -> srpt_k_cmd_free() ->
 * release_cmd (core reuses the slot).
 */
#ifndef SRPT_ABI_CMD_H
#define SRPT_ABI_CMD_H

#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>
#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

struct srpt_k_cmd;
/*
 * The core's command, as the shim holds it: given at srpt_k_cmd_create(),
 * given back in every srpt_core_cmd_* call. Opaque, and distinct from the
 * core's channel (struct srpt_core_chan, cm.h): passing one for the other
 * does not compile (tests/unit/abi/).
 */
struct srpt_core_cmd;

enum srpt_data_dir {
	SRPT_DIR_NONE = 0,
	SRPT_DIR_WRITE = 1,	/* initiator to target (data-out) */
	SRPT_DIR_READ = 2,	/* target to initiator (data-in) */
};

enum srpt_task_attr {
	SRPT_TASK_SIMPLE = 0,
	SRPT_TASK_HEAD = 1,
	SRPT_TASK_ORDERED = 2,
	SRPT_TASK_ACA = 4,
};

int srpt_k_cmd_create(struct srpt_k_qp *qp, uint32_t port_num,
		      struct srpt_core_cmd *core,
		      struct srpt_k_cmd **out) SRPT_NOEXCEPT;
void srpt_k_cmd_destroy(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;
/*
 * Gives a context of a released channel to a slot of another channel, as
 * srpt_k_cmd_create() would have made it: on `qp`, for `core`. Its last
 * command was released (no RDMA context left), and no work request of the
 * old channel's QP, which is destroyed, names it any more.
 */
void srpt_k_cmd_bind(struct srpt_k_cmd *cmd, struct srpt_k_qp *qp,
		     uint32_t port_num, struct srpt_core_cmd *core) SRPT_NOEXCEPT;

struct srpt_cmd_submit {
	const uint8_t *cdb;
	uint32_t cdb_len;
	uint64_t lun;		/* scsilun_to_int() of the 8-byte LUN */
	uint64_t tag;
	uint32_t data_len;
	enum srpt_data_dir dir;
	enum srpt_task_attr attr;
	const uint8_t *imm;	/* immediate data inside the request IU, or NULL */
	uint32_t imm_len;
};
/*
 * Hands the command to the target core. 0: it took the command and answers
 * through the srpt_core_cmd_* callbacks, also when it refuses it (check
 * condition). Negative (-ESHUTDOWN: the session is stopping): it did not
 * take it and holds nothing of it; no callback follows and the slot is the
 * caller's again, which answers the initiator itself.
 */
int srpt_k_cmd_submit(struct srpt_k_cmd *cmd, struct srpt_k_session *sess,
		      const struct srpt_cmd_submit *s) SRPT_NOEXCEPT;
/* After the data-out RDMA reads completed. */
void srpt_k_cmd_execute(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;
/*
 * The data-out transfer failed: the target core ends the command with a
 * CHECK CONDITION (transport_generic_request_failure), which arrives as
 * srpt_core_cmd_queue_status().
 */
void srpt_k_cmd_fail(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;
/* After the response was sent (or failed): drops the target core's reference. */
void srpt_k_cmd_free(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;

/* One remote buffer of a direct or indirect data descriptor. */
struct srpt_rdma_seg {
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
};
/*
 * Maps the command's data buffer onto the remote segments (rdma_rw): one
 * context per non-empty segment, numbered from 0 in segment order.
 * READ: srpt_k_cmd_rdma_write() posts writes, and srpt_k_cmd_send_rsp()
 * posts the rest chained before the response.
 * WRITE: srpt_k_cmd_rdma_read() posts them; srpt_core_cmd_rdma_done() follows.
 * Contexts are posted in order, in parts of whole contexts (a part is
 * posted only after the previous part's completion).
 * The segments lie back to back from the start of the buffer and must fit
 * in it (srpt_cmd_result.data_len bytes): -EINVAL otherwise, and for more
 * than SRPT_K_MAX_RDMA_SEGS segments. Zero-length segments are skipped.
 * Returns the number of send work requests the contexts post (>= 0), or a
 * negative errno; on error nothing stays prepared. Where the device maps
 * RDMA through memory registrations (iWARP; ib_core's force_mr), each
 * context takes some from the QP's pool: -EAGAIN when the pool is short
 * because other commands hold some (retry after they finish), -ENOSPC when
 * none was held by another command, so the pool was all this command's and
 * still too small: it can never be mapped on this QP. (A command whose
 * neighbour gave its registrations back during the attempt may be told
 * -ENOSPC once; never one that a retry alone could serve for certain.)
 */
#define SRPT_K_MAX_RDMA_SEGS 256
int srpt_k_cmd_rdma_prepare(struct srpt_k_cmd *cmd, enum srpt_data_dir dir,
			    const struct srpt_rdma_seg *segs,
			    uint32_t count) SRPT_NOEXCEPT;
/* The prepared contexts, and the send work requests context `i` posts. */
uint32_t srpt_k_cmd_rdma_ctxs(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;
uint32_t srpt_k_cmd_rdma_ctx_wrs(struct srpt_k_cmd *cmd,
				 uint32_t i) SRPT_NOEXCEPT;
/*
 * Drops the prepared contexts (unmapping hands data read into the buffer
 * to the CPU). None of their work requests may be outstanding: never
 * posted, or the completion of the last one posted was seen.
 */
void srpt_k_cmd_rdma_unprepare(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;
/*
 * What srpt_k_cmd_rdma_read(), srpt_k_cmd_rdma_write() and
 * srpt_k_cmd_send_rsp() return when the send queue took the head of the
 * chain and refused the rest. The head has no completion of its own and
 * still moves the command's data, so the shim moves the QP to the error
 * state and posts, behind the head, one request that carries the chain's
 * completion: the chain then completes once, flushed (its usual callback,
 * with a failed status), and only then is the send queue past the head.
 * Until that completion every buffer and mapping of the command stays in
 * use, and the room the chain reserved stays taken (it covers the head
 * and that one request).
 */
#define SRPT_K_POST_BROKEN 1
/*
 * Posts the data-out reads of contexts [first, first + count); the last
 * one signals srpt_core_cmd_rdma_done(). 0, SRPT_K_POST_BROKEN, or a
 * negative errno when the send queue took none of them: then the
 * contexts are dropped (so write_pending can be retried).
 */
int srpt_k_cmd_rdma_read(struct srpt_k_cmd *cmd, uint32_t first,
			 uint32_t count) SRPT_NOEXCEPT;
/*
 * Posts the data-in writes of contexts [first, first + count); the last
 * one signals srpt_core_cmd_rdma_done(). 0, SRPT_K_POST_BROKEN, or a
 * negative errno when nothing was posted. The contexts stay either way
 * (they go with the command).
 */
int srpt_k_cmd_rdma_write(struct srpt_k_cmd *cmd, uint32_t first,
			  uint32_t count) SRPT_NOEXCEPT;
/*
 * Reads `len` bytes of initiator memory (va, rkey) into the start of
 * ring[index] (a SRPT_RING_RECV ring) with one signalled RDMA READ: an
 * external descriptor table. srpt_core_cmd_fetch_done() follows; the bytes
 * are then visible to the CPU.
 */
int srpt_k_cmd_fetch(struct srpt_k_cmd *cmd, struct srpt_k_ring *ring,
		     uint32_t index, uint64_t va, uint32_t rkey,
		     uint32_t len) SRPT_NOEXCEPT;
/*
 * Sends the response (ring[index], len bytes) after the writes of the
 * prepared data-in contexts from `first` on (none when first is their
 * count, or nothing is prepared). 0, SRPT_K_POST_BROKEN (some writes
 * went, the response did not: the response's send completion, flushed,
 * completes the chain), or a negative errno when nothing was posted.
 */
int srpt_k_cmd_send_rsp(struct srpt_k_cmd *cmd, struct srpt_k_ring *ring,
			uint32_t index, uint32_t len,
			uint32_t first) SRPT_NOEXCEPT;

struct srpt_cmd_result {
	uint8_t status;		/* SCSI status */
	uint8_t underflow;	/* residual is an underflow */
	uint8_t overflow;	/* residual is an overflow */
	uint32_t residual;
	/*
	 * The slot's sense buffer, valid until srpt_k_cmd_free(), and the
	 * length the target core reports (scsi_sense_length: for the CHECK
	 * CONDITIONs it builds, the whole buffer). The buffer is zeroed for
	 * each command (srpt_k_cmd_submit()); the core sends only the bytes
	 * the sense data itself claims (built_sense_len()).
	 */
	const uint8_t *sense;
	uint32_t sense_len;
	uint32_t data_len;	/* bytes of data the target core moved */
};
void srpt_k_cmd_result(struct srpt_k_cmd *cmd,
		       struct srpt_cmd_result *out) SRPT_NOEXCEPT;

/*
 * Task management. The core decides which function an SRP_TSK_MGMT asks
 * for; the shim hands it to the target core (target_submit_tmr) on the
 * slot's se_cmd and translates the target core's answer back.
 */
enum srpt_tmf {
	SRPT_TMF_ABORT_TASK = 1,
	SRPT_TMF_ABORT_TASK_SET = 2,
	SRPT_TMF_CLEAR_TASK_SET = 3,
	SRPT_TMF_LUN_RESET = 4,
	SRPT_TMF_CLEAR_ACA = 5,
};

/* The target core's answer to a task management request. */
enum srpt_tmf_result {
	SRPT_TMF_RESULT_COMPLETE = 0,
	SRPT_TMF_RESULT_NO_TASK = 1,		/* ABORT TASK: no such command */
	SRPT_TMF_RESULT_NO_LUN = 2,		/* the LUN is not mapped */
	SRPT_TMF_RESULT_NOT_SUPPORTED = 3,	/* the target core lacks it */
	SRPT_TMF_RESULT_REJECTED = 4,		/* tried and failed */
	SRPT_TMF_RESULT_FAILED = 5,		/* any other answer */
};

struct srpt_tmf_submit {
	enum srpt_tmf func;
	uint64_t lun;		/* scsilun_to_int() of the 8-byte LUN */
	uint64_t tag;		/* the request's own tag */
	uint64_t ref_tag;	/* ABORT TASK: the tag of the command to abort */
};
/*
 * Hands the request to the target core. 0: it answers through
 * srpt_core_cmd_queue_tm_rsp() (or, if the request is itself aborted,
 * through srpt_core_cmd_aborted() and srpt_core_cmd_release() without an
 * answer), and the command is ended as any other: srpt_k_cmd_free() after
 * the response went out. Non-zero (-ENOMEM, -ESHUTDOWN when the session is
 * stopping): the target core holds nothing of the command and will never
 * call back for it; the slot is the caller's again.
 */
int srpt_k_cmd_submit_tmf(struct srpt_k_cmd *cmd, struct srpt_k_session *sess,
			  const struct srpt_tmf_submit *s) SRPT_NOEXCEPT;
/* In srpt_core_cmd_queue_tm_rsp(): what the target core answered. */
enum srpt_tmf_result srpt_k_cmd_tmf_result(struct srpt_k_cmd *cmd) SRPT_NOEXCEPT;

/* Target-core callbacks, process context. Return 0 or a negative errno. */
int srpt_core_cmd_write_pending(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
int srpt_core_cmd_queue_data_in(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
int srpt_core_cmd_queue_status(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
void srpt_core_cmd_queue_tm_rsp(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
void srpt_core_cmd_aborted(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
void srpt_core_cmd_release(struct srpt_core_cmd *cmd) SRPT_NOEXCEPT;
/* The RDMA read of srpt_k_cmd_fetch() completed (ok) or failed/flushed. */
void srpt_core_cmd_fetch_done(struct srpt_core_cmd *cmd, int ok) SRPT_NOEXCEPT;
/*
 * A part posted by srpt_k_cmd_rdma_read() or srpt_k_cmd_rdma_write()
 * completed. wc_status: the kernel's enum ib_wc_status of its last work
 * request's completion, as a plain number (the send queue completes in
 * order, so every request before it is done too); SRPT_WC_SUCCESS when the
 * whole part was moved. The contexts stay prepared.
 */
void srpt_core_cmd_rdma_done(struct srpt_core_cmd *cmd, int wc_status) SRPT_NOEXCEPT;

/* The ib_wc_status values the core tells apart (checked in abi_check.c). */
#define SRPT_WC_SUCCESS 0
#define SRPT_WC_WR_FLUSH_ERR 5	/* the QP is in the error state */
/* The kernel's name of a work completion status (ib_wc_status_msg()). */
const char *srpt_k_wc_status_name(int wc_status) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_CMD_H */
