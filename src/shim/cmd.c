// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI commands: include/srpt/abi/cmd.h.
 *
 * One struct srpt_k_cmd per command slot of a channel. It embeds the
 * target-core command (se_cmd) and its sense buffer, and the rdma_rw
 * contexts that move the command's data between the target core's buffer
 * (se_cmd->t_data_sg) and the initiator's memory.
 *
 * References: the command is submitted with TARGET_SCF_ACK_KREF, so the
 * target core holds two references. The check_stop_free callback drops one
 * when the target core is done with the command (fabric.c), srpt_k_cmd_free()
 * drops the other after the response went out; the last one calls
 * release_cmd (srpt_shim_cmd_release()), which tells the core the slot is
 * free. An aborted command (ABORT TASK, LUN RESET, a stopping session)
 * that had no response yet is ended by the target core alone: it drops the
 * TARGET_SCF_ACK_KREF reference itself, calls aborted_task, then
 * release_cmd; srpt_k_cmd_free() is never called for it. Task management
 * requests use a slot's se_cmd the same way (srpt_k_cmd_submit_tmf()).
 *
 * Each remote segment gets its own rdma_rw context over its own scatterlist
 * (a slice of t_data_sg, or t_data_sg itself when one segment covers the
 * whole buffer): rdma_rw_ctx_init() DMA-maps the list it is given and
 * transfers it to its end, so two contexts must never share entries.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <srpt/abi/cmd.h>
#include "fault.h"
#include "objects.h"
#include "shim.h"

struct srpt_k_rw {
	struct rdma_rw_ctx ctx;
	struct scatterlist *sg;		/* what ctx was initialised on */
	u32 nents;
	u32 wrs;			/* work requests ctx posts */
	bool own_sg;			/* sg is a slice this command made */
};

#define SRPT_K_RW_INLINE 4

struct srpt_k_cmd {
	struct se_cmd se_cmd;
	u8 sense[TRANSPORT_SENSE_BUFFER];
	struct srpt_k_qp *qp;
	u32 port_num;
	struct srpt_core_cmd *ctx;	/* the core's command */
	struct scatterlist imm_sg;	/* immediate data, inside the request */
	struct ib_cqe rdma_cqe;		/* a part's last RDMA read or write */
	struct ib_cqe fetch_cqe;	/* the descriptor-table read */
	struct srpt_k_ring_entry *fetch_ent;
	u32 fetch_len;
	enum dma_data_direction rw_dir;
	u32 n_rw;
	/*
	 * rw_inline, or for more segments an array made by prepare and freed
	 * with the contexts (a slot rarely needs more than a few).
	 */
	struct srpt_k_rw *rw;
	struct srpt_k_rw rw_inline[SRPT_K_RW_INLINE];
	/* A CDB the target core may read past the request's copy of it. */
	u8 cdb[SCSI_MAX_VARLEN_CDB_SIZE];
};

/*
 * Command contexts come from a cache of their own: at 1320 bytes, kmalloc
 * would round each up to 2 KiB (64 slots: 128 KiB per channel instead of
 * about 83, every byte of it zeroed during the login).
 */
static struct kmem_cache *srpt_k_cmd_cache;

int srpt_shim_cmd_cache_create(void)
{
	srpt_k_cmd_cache = kmem_cache_create("srpt_cmd", sizeof(struct srpt_k_cmd),
					     0, 0, NULL);
	return srpt_k_cmd_cache ? 0 : -ENOMEM;
}

void srpt_shim_cmd_cache_destroy(void)
{
	/* SAFETY: every channel, and with it every context, is gone. */
	kmem_cache_destroy(srpt_k_cmd_cache);
	srpt_k_cmd_cache = NULL;
}

static struct srpt_k_cmd *srpt_k_cmd_of(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_k_cmd, se_cmd);
}

struct srpt_core_cmd *srpt_shim_cmd_ctx(struct se_cmd *se_cmd)
{
	return srpt_k_cmd_of(se_cmd)->ctx;
}

/* --- RDMA contexts ------------------------------------------------------ */

static void srpt_k_rw_destroy_all(struct srpt_k_cmd *cmd)
{
	u32 i;

	/*
	 * SAFETY: none of the contexts' work requests is outstanding: the
	 * caller saw the completion of the last request they were chained
	 * to, or never posted them. The QP still exists (slots are freed
	 * before the channel's QP is destroyed), and rdma_rw unmaps exactly
	 * the list it mapped.
	 */
	for (i = 0; i < cmd->n_rw; i++) {
		struct srpt_k_rw *rw = &cmd->rw[i];

		rdma_rw_ctx_destroy(&rw->ctx, cmd->qp->ib_qp, cmd->port_num,
				    rw->sg, rw->nents, cmd->rw_dir);
		if (rw->own_sg)
			kfree(rw->sg);
		rw->sg = NULL;
	}
	cmd->n_rw = 0;
	if (cmd->rw != cmd->rw_inline) {
		kfree(cmd->rw);
		cmd->rw = cmd->rw_inline;
	}
}

/*
 * A scatterlist for bytes [off, off + len) of `sg` (which holds `total`
 * bytes): the whole list when that is the range, else a new array of the
 * entries' pieces. -EINVAL when the range does not fit.
 */
static int srpt_k_sg_slice(struct scatterlist *sg, u32 nents, u64 total,
			   u64 off, u32 len, struct srpt_k_rw *rw)
{
	struct scatterlist *s, *first = NULL, *out;
	u64 skip = off, left = len;
	u32 first_off = 0, n = 0, i;

	if (!len || off > total || len > total - off)
		return -EINVAL;
	if (off == 0 && len == total) {
		rw->sg = sg;
		rw->nents = nents;
		rw->own_sg = false;
		return 0;
	}

	/* Find the entry the range starts in, and count the entries. */
	for_each_sg(sg, s, nents, i) {
		if (!first) {
			if (skip >= s->length) {
				skip -= s->length;
				continue;
			}
			first = s;
			first_off = skip;
			left -= min_t(u64, left, s->length - skip);
			n = 1;
		} else {
			left -= min_t(u64, left, s->length);
			n++;
		}
		if (!left)
			break;
	}
	if (!first || left)
		return -EINVAL;

	out = kmalloc_array(n, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	sg_init_table(out, n);

	left = len;
	s = first;
	for (i = 0; i < n; i++, s = sg_next(s)) {
		u32 o = i ? 0 : first_off;
		u32 l = min_t(u64, left, s->length - o);

		sg_set_page(&out[i], sg_page(s), l, s->offset + o);
		left -= l;
	}

	rw->sg = out;
	rw->nents = n;
	rw->own_sg = true;
	return 0;
}

int srpt_k_cmd_rdma_prepare(struct srpt_k_cmd *cmd, enum srpt_data_dir dir,
			    const struct srpt_rdma_seg *segs, uint32_t count)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct scatterlist *s;
	u64 total = 0, off = 0;
	u32 i;
	int ret, wrs = 0;

	if (WARN_ON_ONCE(cmd->n_rw || cmd->rw != cmd->rw_inline))
		return -EBUSY;
	if (count > SRPT_K_MAX_RDMA_SEGS)
		return -EINVAL;
	switch (dir) {
	case SRPT_DIR_READ:	/* data-in: RDMA WRITE from our buffer */
		cmd->rw_dir = DMA_TO_DEVICE;
		break;
	case SRPT_DIR_WRITE:	/* data-out: RDMA READ into our buffer */
		cmd->rw_dir = DMA_FROM_DEVICE;
		break;
	default:
		return -EINVAL;
	}
	if (count > SRPT_K_RW_INLINE) {
		/* Process context (target-core callback or CQ work). */
		cmd->rw = kcalloc(count, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw) {
			cmd->rw = cmd->rw_inline;
			return -ENOMEM;
		}
	}

	for_each_sg(se_cmd->t_data_sg, s, se_cmd->t_data_nents, i)
		total += s->length;

	for (i = 0; i < count; i++) {
		struct srpt_k_rw *rw = &cmd->rw[cmd->n_rw];

		/* Nothing to move, nothing to map. */
		if (!segs[i].len)
			continue;

		ret = srpt_k_sg_slice(se_cmd->t_data_sg, se_cmd->t_data_nents,
				      total, off, segs[i].len, rw);
		if (ret)
			goto err_destroy;

		/*
		 * SAFETY: process context (rdma_rw allocates with
		 * GFP_KERNEL); the target core's buffer stays until
		 * release_cmd, after which these contexts are gone.
		 */
		ret = rdma_rw_ctx_init(&rw->ctx, cmd->qp->ib_qp, cmd->port_num,
				       rw->sg, rw->nents, 0, segs[i].va,
				       segs[i].rkey, cmd->rw_dir);
		if (ret < 0) {
			if (rw->own_sg)
				kfree(rw->sg);
			rw->sg = NULL;
			goto err_destroy;
		}
		rw->wrs = ret;	/* rdma_rw_ctx_init: the work requests it posts */
		cmd->n_rw++;
		wrs += ret;
		off += segs[i].len;
	}
	return wrs;

err_destroy:
	srpt_k_rw_destroy_all(cmd);
	/*
	 * rdma_rw's -EAGAIN: the QP's pool of memory registrations ran out
	 * (iWARP, force_mr). With none held by another command now, the pool
	 * was this command's alone, or nearly, and still short: retrying, as
	 * the target core does at once and without end for -EAGAIN, could
	 * never succeed and the command would never end (abi/cmd.h).
	 */
	if (ret == -EAGAIN && !READ_ONCE(cmd->qp->ib_qp->mrs_used))
		ret = -ENOSPC;
	return ret;
}

uint32_t srpt_k_cmd_rdma_ctxs(struct srpt_k_cmd *cmd)
{
	return cmd->n_rw;
}

uint32_t srpt_k_cmd_rdma_ctx_wrs(struct srpt_k_cmd *cmd, uint32_t i)
{
	if (WARN_ON_ONCE(i >= cmd->n_rw))
		return 0;
	return cmd->rw[i].wrs;
}

void srpt_k_cmd_rdma_unprepare(struct srpt_k_cmd *cmd)
{
	/* SAFETY: none of them is outstanding (abi/cmd.h). */
	srpt_k_rw_destroy_all(cmd);
}

static void srpt_k_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_k_cmd *cmd =
		container_of(wc->wr_cqe, struct srpt_k_cmd, rdma_cqe);

	srpt_k_cq_context_check(cq);
	/*
	 * Process context (the CQ polls from a work queue). This is the
	 * last request of a part and the send queue completes in order, so
	 * the whole part is done (on error: failed or flushed). The contexts
	 * stay: the core posts the next part, or unprepares them before the
	 * backend may see data read into the buffer.
	 */
	srpt_core_cmd_rdma_done(cmd->ctx, wc->status);
}

const char *srpt_k_wc_status_name(int wc_status)
{
	return ib_wc_status_msg(wc_status);
}

/*
 * Chains the work requests of contexts [first, end) in order in front of
 * `tail`; the last one signals `cqe` when there is no tail.
 */
static struct ib_send_wr *srpt_k_rw_chain(struct srpt_k_cmd *cmd, u32 first,
					  u32 end, struct ib_cqe *cqe,
					  struct ib_send_wr *tail)
{
	struct ib_send_wr *head = tail;
	u32 i;

	for (i = end; i-- > first;)
		head = rdma_rw_ctx_wrs(&cmd->rw[i].ctx, cmd->qp->ib_qp,
				       cmd->port_num, cqe, head);
	return head;
}

/*
 * The send queue took the head of a chain and refused the rest (abi/cmd.h,
 * SRPT_K_POST_BROKEN). The head's requests are unsignalled: nothing will
 * ever say they are done, and a live QP may still be moving their data.
 * In the error state the QP executes nothing more and flushes in order, so
 * one request posted behind the head with the chain's cqe completes, as a
 * flush, only once the queue is past the head. A zero-length RDMA WRITE
 * without scatter/gather entries, as ib_drain_sq() posts, cannot be
 * malformed; the chain's reserved room holds it (the refused requests
 * took none). If the QP cannot be moved to the error state, no such
 * request is posted (on a live QP it would complete as a success): the
 * chain then never completes, and the command waits (its memory stays
 * valid) until the channel's release destroys the QP.
 */
static int srpt_k_chain_broken(struct srpt_k_qp *qp, struct ib_cqe *cqe)
{
	struct ib_rdma_wr flush = {};
	int ret;

	ret = srpt_k_qp_error(qp);
	if (WARN_ONCE(ret, "QP %u: a chain went in part and the QP cannot be moved to the error state (%d)\n",
		      qp->ib_qp->qp_num, ret))
		return SRPT_K_POST_BROKEN;
	flush.wr.wr_cqe = cqe;
	flush.wr.opcode = IB_WR_RDMA_WRITE;
	flush.wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(qp->ib_qp, &flush.wr, NULL);
	WARN_ONCE(ret, "QP %u: the request that completes a chain posted in part was refused (%d)\n",
		  qp->ib_qp->qp_num, ret);
	return SRPT_K_POST_BROKEN;
}

/*
 * Posts a chain whose completion is `cqe`: 0, SRPT_K_POST_BROKEN, or the
 * errno of a post that took nothing. The fault point chain_break posts a
 * chain of more than one request as its first request alone and reports
 * the rest refused, as a send queue that runs out part-way does.
 */
static int srpt_k_post_chain(struct srpt_k_qp *qp, struct ib_send_wr *head,
			     struct ib_cqe *cqe)
{
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *rest = head->next;
	int ret;

	if (rest && srpt_fault_hit(SRPT_FAULT_CHAIN_BREAK)) {
		head->next = NULL;
		ret = ib_post_send(qp->ib_qp, head, &bad_wr);
		head->next = rest;
		if (!ret) {
			bad_wr = rest;
			ret = -ENOMEM;
		}
	} else {
		ret = ib_post_send(qp->ib_qp, head, &bad_wr);
	}
	if (!ret || bad_wr == head)
		return ret;
	return srpt_k_chain_broken(qp, cqe);
}

static int srpt_k_cmd_rdma_post(struct srpt_k_cmd *cmd, u32 first, u32 count,
				enum dma_data_direction dir)
{
	struct ib_send_wr *head;
	int ret;

	if (WARN_ON_ONCE(!count || first >= cmd->n_rw ||
			 count > cmd->n_rw - first || cmd->rw_dir != dir))
		return -EINVAL;
	head = srpt_k_rw_chain(cmd, first, first + count, &cmd->rdma_cqe, NULL);
	ret = srpt_k_post_chain(cmd->qp, head, &cmd->rdma_cqe);
	/*
	 * Nothing posted (typically a full send queue) of a data-out part:
	 * the contexts go, so that the target core's retry of write_pending
	 * can prepare afresh (no earlier part is outstanding: each is posted
	 * after the previous one completed).
	 */
	if (ret < 0 && dir == DMA_FROM_DEVICE)
		srpt_k_rw_destroy_all(cmd);
	return ret;
}

int srpt_k_cmd_rdma_read(struct srpt_k_cmd *cmd, uint32_t first,
			 uint32_t count)
{
	return srpt_k_cmd_rdma_post(cmd, first, count, DMA_FROM_DEVICE);
}

int srpt_k_cmd_rdma_write(struct srpt_k_cmd *cmd, uint32_t first,
			  uint32_t count)
{
	return srpt_k_cmd_rdma_post(cmd, first, count, DMA_TO_DEVICE);
}

static void srpt_k_fetch_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_k_cmd *cmd =
		container_of(wc->wr_cqe, struct srpt_k_cmd, fetch_cqe);
	struct srpt_k_ring_entry *ent = cmd->fetch_ent;
	int ok = wc->status == IB_WC_SUCCESS;

	srpt_k_cq_context_check(cq);
	cmd->fetch_ent = NULL;
	if (ok)
		ib_dma_sync_single_for_cpu(ent->ring->ib_dev, ent->dma,
					   cmd->fetch_len, DMA_FROM_DEVICE);
	srpt_core_cmd_fetch_done(cmd->ctx, ok);
}

int srpt_k_cmd_fetch(struct srpt_k_cmd *cmd, struct srpt_k_ring *ring,
		     uint32_t index, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct srpt_k_ring_entry *ent;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	int ret;

	if (WARN_ON_ONCE(ring->dir != SRPT_RING_RECV || index >= ring->count ||
			 !len || len > ring->size || cmd->fetch_ent))
		return -EINVAL;
	ent = &ring->ent[index];
	/* The device may write the buffer the CPU read last time. */
	ib_dma_sync_single_for_device(ring->ib_dev, ent->dma, len,
				      DMA_FROM_DEVICE);
	sge.addr = ent->dma;
	sge.length = len;
	sge.lkey = ring->lkey;
	wr.wr.wr_cqe = &cmd->fetch_cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = va;
	wr.rkey = rkey;
	cmd->fetch_ent = ent;
	cmd->fetch_len = len;
	ret = ib_post_send(cmd->qp->ib_qp, &wr.wr, NULL);
	if (ret)
		cmd->fetch_ent = NULL;
	return ret;
}

int srpt_k_cmd_send_rsp(struct srpt_k_cmd *cmd, struct srpt_k_ring *ring,
			uint32_t index, uint32_t len, uint32_t first)
{
	struct ib_send_wr wr, *head = &wr;
	struct ib_sge sge;
	int ret;

	ret = srpt_shim_prep_send(cmd->qp, ring, index, len, &wr, &sge);
	if (ret)
		return ret;
	/*
	 * Data-in goes as unsignalled RDMA WRITEs in front of the response,
	 * which the RC QP delivers after them; the response's completion
	 * (srpt_core_send_done()) covers them all.
	 */
	if (first < cmd->n_rw && cmd->rw_dir == DMA_TO_DEVICE)
		head = srpt_k_rw_chain(cmd, first, cmd->n_rw, NULL, &wr);
	return srpt_k_post_chain(cmd->qp, head, wr.wr_cqe);
}

/* --- life of a command -------------------------------------------------- */

int srpt_k_cmd_create(struct srpt_k_qp *qp, uint32_t port_num,
		      struct srpt_core_cmd *ctx,
		      struct srpt_k_cmd **out)
{
	struct srpt_k_cmd *cmd;

	cmd = srpt_shim_cache_zalloc(srpt_k_cmd_cache);
	if (!cmd)
		return -ENOMEM;
	cmd->rdma_cqe.done = srpt_k_rdma_done;
	cmd->fetch_cqe.done = srpt_k_fetch_done;
	cmd->rw = cmd->rw_inline;
	srpt_k_cmd_bind(cmd, qp, port_num, ctx);
	*out = cmd;
	return 0;
}

/*
 * The rest of a reused context is stale and is not read before it is
 * written: se_cmd and the sense buffer are cleared by each submit, the CDB
 * copy by srpt_k_cdb() when it is used, imm_sg, the fetch and the RDMA
 * fields by the step that uses them.
 */
void srpt_k_cmd_bind(struct srpt_k_cmd *cmd, struct srpt_k_qp *qp,
		     u32 port_num, struct srpt_core_cmd *ctx)
{
	/* Released commands have no contexts left (srpt_shim_cmd_release). */
	WARN_ON_ONCE(cmd->n_rw || cmd->rw != cmd->rw_inline);
	cmd->qp = qp;
	cmd->port_num = port_num;
	cmd->ctx = ctx;
}

void srpt_k_cmd_destroy(struct srpt_k_cmd *cmd)
{
	if (!cmd)
		return;
	/* Released commands have no contexts left (srpt_shim_cmd_release). */
	WARN_ON_ONCE(cmd->n_rw);
	srpt_shim_cache_free(srpt_k_cmd_cache, cmd);
}

static int srpt_k_task_attr(enum srpt_task_attr attr)
{
	switch (attr) {
	case SRPT_TASK_SIMPLE:
		return TCM_SIMPLE_TAG;
	case SRPT_TASK_HEAD:
		return TCM_HEAD_TAG;
	case SRPT_TASK_ORDERED:
		return TCM_ORDERED_TAG;
	case SRPT_TASK_ACA:
		return TCM_ACA_TAG;
	}
	/* The core maps the SRP task attribute; anything else is its bug. */
	WARN_ON_ONCE(1);
	return TCM_SIMPLE_TAG;
}

static int srpt_k_data_dir(enum srpt_data_dir dir)
{
	switch (dir) {
	case SRPT_DIR_NONE:
		return DMA_NONE;
	case SRPT_DIR_WRITE:
		return DMA_TO_DEVICE;
	case SRPT_DIR_READ:
		return DMA_FROM_DEVICE;
	}
	WARN_ON_ONCE(1);
	return DMA_NONE;
}

/*
 * The target core copies scsi_command_size(cdb) bytes, which the CDB's own
 * opcode (and, for variable-length CDBs, its length byte) decides. Hand it
 * a zero-padded copy when that is more than the request holds.
 */
static unsigned char *srpt_k_cdb(struct srpt_k_cmd *cmd,
				 const struct srpt_cmd_submit *s)
{
	u32 len = min_t(u32, s->cdb_len, sizeof(cmd->cdb));

	if (s->cdb_len >= 8 && scsi_command_size(s->cdb) <= s->cdb_len)
		return (unsigned char *)s->cdb;
	memset(cmd->cdb, 0, sizeof(cmd->cdb));
	memcpy(cmd->cdb, s->cdb, len);
	return cmd->cdb;
}

int srpt_k_cmd_submit(struct srpt_k_cmd *cmd, struct srpt_k_session *sess,
		      const struct srpt_cmd_submit *s)
{
	struct se_session *se_sess = (struct se_session *)sess;
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct scatterlist *imm = NULL;
	int ret;

	/*
	 * SAFETY: the slot's previous command was released (release_cmd),
	 * so the target core no longer refers to this se_cmd.
	 */
	memset(se_cmd, 0, sizeof(*se_cmd));
	/* The target core writes only the sense bytes it builds. */
	memset(cmd->sense, 0, sizeof(cmd->sense));
	se_cmd->tag = s->tag;
	/* release_cmd destroyed the previous command's contexts. */
	WARN_ON_ONCE(cmd->n_rw);

	ret = target_init_cmd(se_cmd, se_sess, cmd->sense, s->lun,
			      s->data_len, srpt_k_task_attr(s->attr),
			      srpt_k_data_dir(s->dir), TARGET_SCF_ACK_KREF);
	/*
	 * The session is stopping: target_get_sess_cmd() took no session
	 * reference, so the target core must not see this command again
	 * (target_send_busy() would drop a reference never taken). The core
	 * answers BUSY itself.
	 */
	if (ret)
		return ret;

	if (s->imm) {
		/*
		 * SAFETY: the immediate data lies in the request's receive
		 * buffer (kmalloc memory), which the core does not repost
		 * before the command is released.
		 */
		sg_init_one(&cmd->imm_sg, s->imm, s->imm_len);
		imm = &cmd->imm_sg;
	}

	/*
	 * SAFETY: process context (GFP_KERNEL). Non-zero: the target core
	 * already answered through queue_status and dropped its reference.
	 */
	if (target_submit_prep(se_cmd, srpt_k_cdb(cmd, s), imm, imm ? 1 : 0,
			       NULL, 0, NULL, 0, GFP_KERNEL))
		return 0;
	target_submit(se_cmd);
	return 0;
}

/* --- task management ----------------------------------------------------- */

static unsigned char srpt_k_tmr_function(enum srpt_tmf func)
{
	switch (func) {
	case SRPT_TMF_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TMF_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TMF_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TMF_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TMF_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	}
	/* The core submits only the functions above; anything else is its bug. */
	WARN_ON_ONCE(1);
	return TMR_UNKNOWN;
}

int srpt_k_cmd_submit_tmf(struct srpt_k_cmd *cmd, struct srpt_k_session *sess,
			  const struct srpt_tmf_submit *s)
{
	struct se_session *se_sess = (struct se_session *)sess;
	struct se_cmd *se_cmd = &cmd->se_cmd;

	/* SAFETY: as in srpt_k_cmd_submit(), the slot's last command was released. */
	memset(se_cmd, 0, sizeof(*se_cmd));
	WARN_ON_ONCE(cmd->n_rw);
	se_cmd->tag = s->tag;

	/*
	 * SAFETY: process context (GFP_KERNEL). With TARGET_SCF_ACK_KREF the
	 * target core holds two references, dropped as for a SCSI command
	 * (check_stop_free after queue_tm_rsp, srpt_k_cmd_free() after the
	 * send). A LUN the session does not map is answered through
	 * queue_tm_rsp too (from a work item). A non-zero return leaves no
	 * reference and no se_tmr_req behind: the target core released what
	 * it had set up.
	 */
	return target_submit_tmr(se_cmd, se_sess, cmd->sense, s->lun, NULL,
				 srpt_k_tmr_function(s->func), GFP_KERNEL,
				 s->ref_tag, TARGET_SCF_ACK_KREF);
}

enum srpt_tmf_result srpt_k_cmd_tmf_result(struct srpt_k_cmd *cmd)
{
	struct se_tmr_req *tmr = cmd->se_cmd.se_tmr_req;

	if (WARN_ON_ONCE(!tmr))
		return SRPT_TMF_RESULT_FAILED;
	switch (tmr->response) {
	case TMR_FUNCTION_COMPLETE:
		return SRPT_TMF_RESULT_COMPLETE;
	case TMR_TASK_DOES_NOT_EXIST:
		return SRPT_TMF_RESULT_NO_TASK;
	case TMR_LUN_DOES_NOT_EXIST:
		return SRPT_TMF_RESULT_NO_LUN;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		return SRPT_TMF_RESULT_NOT_SUPPORTED;
	case TMR_FUNCTION_REJECTED:
		return SRPT_TMF_RESULT_REJECTED;
	}
	return SRPT_TMF_RESULT_FAILED;
}

void srpt_k_cmd_execute(struct srpt_k_cmd *cmd)
{
	target_execute_cmd(&cmd->se_cmd);
}

void srpt_k_cmd_fail(struct srpt_k_cmd *cmd)
{
	/*
	 * As the in-tree driver does for a failed RDMA read: the target core
	 * answers with CHECK CONDITION through queue_status, synchronously.
	 */
	transport_generic_request_failure(&cmd->se_cmd,
					  TCM_CHECK_CONDITION_ABORT_CMD);
}

void srpt_k_cmd_free(struct srpt_k_cmd *cmd)
{
	/* The response's completion was seen: no RDMA WR is outstanding. */
	srpt_k_rw_destroy_all(cmd);
	/* May call release_cmd, and so srpt_core_cmd_release(), right away. */
	transport_generic_free_cmd(&cmd->se_cmd, 0);
}

void srpt_shim_cmd_release(struct se_cmd *se_cmd)
{
	struct srpt_k_cmd *cmd = srpt_k_cmd_of(se_cmd);

	/* Aborted commands never reach srpt_k_cmd_free(). */
	srpt_k_rw_destroy_all(cmd);
	srpt_core_cmd_release(cmd->ctx);
}

void srpt_k_cmd_result(struct srpt_k_cmd *cmd, struct srpt_cmd_result *out)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;

	out->status = se_cmd->scsi_status;
	out->underflow = !!(se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT);
	out->overflow = !!(se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT);
	out->residual = se_cmd->residual_count;
	out->sense = cmd->sense;
	out->sense_len = min_t(u32, se_cmd->scsi_sense_length,
			       sizeof(cmd->sense));
	out->data_len = se_cmd->data_length;
}
