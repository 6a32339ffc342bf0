// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA/CM back end of the test initiator (initiator.h), in userspace.
 *
 * The id never gets a QP through rdma_create_qp(): librdmacm then hands the
 * REP to us as RDMA_CM_EVENT_CONNECT_RESPONSE instead of answering it with an
 * RTU by itself, which is what lets the tool withhold the RTU or reject the
 * REP. The REQ still names a real RC QP of ours (conn_param.qp_num), moved
 * to RTR/RTS before the RTU as a real initiator would.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "initiator.h"

/* Message buffers: one send buffer, then recv_slots receive buffers. */
#define SEND_BYTES 8192
#define RECV_SLOTS 4	/* unless the login asks for more */
#define RECV_BYTES 1024
/* Sends in flight at once (the QP's send queue). */
#define SEND_WRS 4

struct ti_conn {
	enum ti_cm cm;
	struct ti_login in;
	int established;	/* REP received */
	int rtu_sent;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned int recv_slots;
	uint8_t *buf;		/* SEND_BYTES + recv_slots * RECV_BYTES */
	uint8_t *data;		/* in.data_bytes, remote read and write */
	struct ibv_mr *data_mr;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* The next event within `ms`, or NULL with errno ETIMEDOUT / the error. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ec, int ms)
{
	struct pollfd p = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		errno = ETIMEDOUT;
		return NULL;
	}
	if (n < 0 || rdma_get_cm_event(ec, &ev))
		return NULL;
	return ev;
}

static void fail(struct ti_outcome *out, enum ti_result r, const char *what)
{
	out->result = r;
	snprintf(out->what, sizeof(out->what), "%s", what);
}

/* Waits for `want`; anything else is reported as `r` with `what`. */
static int expect(struct ti_conn *c, enum rdma_cm_event_type want,
		  struct ti_outcome *out, const char *what)
{
	struct rdma_cm_event *ev = next_event(c->ec, c->in.timeout_ms);

	if (!ev) {
		fail(out, errno == ETIMEDOUT ? TI_TIMEOUT : TI_ERROR, what);
		return -1;
	}
	if (ev->event != want) {
		snprintf(out->what, sizeof(out->what), "%s: %s (status %d)",
			 what, rdma_event_str(ev->event), ev->status);
		out->result = TI_UNREACHABLE;
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

static int modify_qp(struct ti_conn *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask;

	if (rdma_init_qp_attr(c->id, &attr, &mask))
		return -1;
	return ibv_modify_qp(c->qp, &attr, mask);
}

static int make_qp(struct ti_conn *c)
{
	struct ibv_qp_init_attr qpa = { .qp_type = IBV_QPT_RC };

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -1;
	c->cq = ibv_create_cq(c->id->verbs, SEND_WRS + c->recv_slots, NULL, NULL, 0);
	if (!c->cq)
		return -1;
	qpa.send_cq = qpa.recv_cq = c->cq;
	qpa.cap.max_send_wr = SEND_WRS;
	qpa.cap.max_recv_wr = c->recv_slots;
	qpa.cap.max_send_sge = qpa.cap.max_recv_sge = 1;
	c->qp = ibv_create_qp(c->pd, &qpa);
	if (!c->qp)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, SEND_BYTES + c->recv_slots * RECV_BYTES,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return -1;
	if (c->in.data_bytes) {
		if (posix_memalign((void **)&c->data, 4096, c->in.data_bytes))
			return -1;
		memset(c->data, 0x5a, c->in.data_bytes);
		c->data_mr = ibv_reg_mr(c->pd, c->data, c->in.data_bytes,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_WRITE);
		if (!c->data_mr)
			return -1;
	}
	return modify_qp(c, IBV_QPS_INIT);
}

static int post_recv(struct ti_conn *c, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + SEND_BYTES + slot * RECV_BYTES),
		.length = RECV_BYTES, .lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

struct ti_conn *ti_rdma_login(const struct ti_login *in, struct ti_outcome *out)
{
	struct rdma_conn_param param = { 0 };
	struct addrinfo *ai = NULL, hints = { .ai_family = AF_UNSPEC };
	struct rdma_cm_event *ev;
	struct ti_conn *c;
	char port[8];
	uint64_t t0;

	memset(out, 0, sizeof(*out));
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cm = TI_CM_RDMA;
	c->in = *in;
	if (!c->in.timeout_ms)
		c->in.timeout_ms = 5000;
	c->recv_slots = in->recv_slots ? in->recv_slots : RECV_SLOTS;
	c->buf = calloc(1, SEND_BYTES + c->recv_slots * RECV_BYTES);
	if (!c->buf) {
		fail(out, TI_ERROR, "out of memory");
		return c;
	}

	snprintf(port, sizeof(port), "%u", in->rdma_port);
	if (getaddrinfo(in->addr, port, &hints, &ai)) {
		fail(out, TI_ERROR, "bad address");
		return c;
	}
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, c, RDMA_PS_TCP)) {
		fail(out, TI_ERROR, "rdma_create_id");
		goto out;
	}
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, c->in.timeout_ms)) {
		fail(out, TI_UNREACHABLE, "rdma_resolve_addr");
		goto out;
	}
	if (expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, out, "resolving the address"))
		goto out;
	if (rdma_resolve_route(c->id, c->in.timeout_ms)) {
		fail(out, TI_UNREACHABLE, "rdma_resolve_route");
		goto out;
	}
	if (expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, out, "resolving the route"))
		goto out;
	if (make_qp(c)) {
		fail(out, TI_ERROR, "creating the QP");
		goto out;
	}

	param.private_data = in->req;
	param.private_data_len = in->req_len;
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.qp_num = c->qp->qp_num;
	if (in->before_req)
		in->before_req(in->before_req_arg);
	t0 = now_ns();
	out->sent_ns = t0;
	if (rdma_connect(c->id, &param)) {
		snprintf(out->what, sizeof(out->what), "rdma_connect: %s",
			 strerror(errno));
		out->result = TI_ERROR;
		goto out;
	}
	ev = next_event(c->ec, c->in.timeout_ms);
	out->latency_ns = now_ns() - t0;
	if (!ev) {
		fail(out, errno == ETIMEDOUT ? TI_TIMEOUT : TI_ERROR,
		     "waiting for REP or REJ");
		goto out;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_REJECTED:
		out->result = ev->event == RDMA_CM_EVENT_REJECTED ?
			      TI_REJECTED : TI_ESTABLISHED;
		out->cm_status = ev->event == RDMA_CM_EVENT_REJECTED ? ev->status : 0;
		out->priv_len = ev->param.conn.private_data ?
				ev->param.conn.private_data_len : 0;
		if (out->priv_len > sizeof(out->priv))
			out->priv_len = sizeof(out->priv);
		memcpy(out->priv, ev->param.conn.private_data, out->priv_len);
		c->established = ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		fail(out, TI_UNREACHABLE, "unreachable");
		out->cm_status = ev->status;
		break;
	default:
		snprintf(out->what, sizeof(out->what), "connect: %s (status %d)",
			 rdma_event_str(ev->event), ev->status);
		out->result = TI_ERROR;
		break;
	}
	rdma_ack_cm_event(ev);
out:
	freeaddrinfo(ai);
	return c;
}

/*
 * Our QP to RTR with its receive buffers posted (the target may send as soon
 * as it sees the RTU), then to RTS. First INIT again, as librdmacm and the
 * kernel's rdma_cm do: only now, with the REP in, does the CM give the
 * access flags (remote write and read) that the INIT before the REQ lacked.
 * Without them the first RDMA WRITE of the target (the in-tree ib_srpt posts
 * a zero-length one on RTU) puts our QP in error and the target tears the
 * channel down.
 */
static int qp_to_rts(struct ti_conn *c)
{
	int i;

	if (modify_qp(c, IBV_QPS_INIT) || modify_qp(c, IBV_QPS_RTR))
		return -1;
	for (i = 0; i < (int)c->recv_slots; i++)
		if (post_recv(c, i))
			return -1;
	return modify_qp(c, IBV_QPS_RTS);
}

/* RTU: the QP ready, then librdmacm's rdma_establish(). */
static int send_rtu(struct ti_conn *c)
{
	if (c->rtu_sent)
		return 0;
	if (qp_to_rts(c) || rdma_establish(c->id))
		return -1;
	c->rtu_sent = 1;
	return 0;
}

/* Posts the first `len` bytes of the send buffer, signalled, wr_id ~0. */
static int post_send(struct ti_conn *c, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf, .length = len,
			       .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = ~0ull, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(c->qp, &wr, &bad);
}

int ti_rdma_rtu(struct ti_conn *c)
{
	if (c->cm != TI_CM_RDMA || !c->established)
		return -1;
	return send_rtu(c);
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/* Descriptors keyed TI_DATA_KEY name the data buffer (initiator.h). */
static void point_at_data(struct ti_conn *c, uint8_t *iu, size_t len)
{
	size_t off;

	if (!c->data_mr)
		return;
	for (off = 0; off + 16 <= len; off += 4) {
		if (get_be(iu + off + 8, 4) != TI_DATA_KEY)
			continue;
		put_be(iu + off, (uintptr_t)c->data + get_be(iu + off, 8), 8);
		put_be(iu + off + 8, c->data_mr->rkey, 4);
	}
}

int ti_rdma_exchange(struct ti_conn *c, const uint8_t *iu, size_t len,
		     uint8_t *rsp, size_t rsp_max, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	struct ibv_wc wc;
	int n;

	if (ti_rdma_rtu(c) || len > SEND_BYTES)
		return -1;
	memcpy(c->buf, iu, len);
	point_at_data(c, c->buf, len);
	if (post_send(c, len))
		return -1;
	/* The send's completion and the answer, in either order. */
	while (now_ns() < deadline) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 0) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			/* Flushed or failed: the connection is gone. */
			if (wc.wr_id != ~0ull)
				return 0;
			continue;
		}
		if (wc.wr_id == ~0ull)
			continue;
		n = wc.byte_len < rsp_max ? wc.byte_len : rsp_max;
		memcpy(rsp, c->buf + SEND_BYTES + wc.wr_id * RECV_BYTES, n);
		if (post_recv(c, wc.wr_id))
			return -1;
		return n;
	}
	return 0;
}

/* A DISCONNECTED (or any other teardown) event waiting on the channel. */
static int peer_closed(struct ti_conn *c)
{
	struct rdma_cm_event *ev = next_event(c->ec, 0);
	enum rdma_cm_event_type t;

	if (!ev)
		return 0;
	t = ev->event;
	rdma_ack_cm_event(ev);
	return t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL ||
	       t == RDMA_CM_EVENT_TIMEWAIT_EXIT;
}

int ti_rdma_burst(struct ti_conn *c, const uint8_t *iu, size_t len, int n,
		  unsigned int timeout_ms, int *closed)
{
	uint64_t deadline;
	int sent = 0, inflight = 0, answers = 0, i, k;
	struct ibv_wc wc[8];

	*closed = 0;
	if (c->cm != TI_CM_RDMA || !c->established || c->rtu_sent ||
	    len > SEND_BYTES)
		return -1;
	memcpy(c->buf, iu, len);
	/* As send_rtu(), without rdma_establish(): the target sees no RTU. */
	if (qp_to_rts(c))
		return -1;
	deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	/* Each send completes once the target's device took it (RC ACK). */
	while ((sent < n || inflight) && now_ns() < deadline) {
		while (sent < n && inflight < SEND_WRS) {
			if (post_send(c, len))
				return -1;
			sent++;
			inflight++;
		}
		k = ibv_poll_cq(c->cq, 8, wc);
		if (k < 0)
			return -1;
		for (i = 0; i < k; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return -1;
			if (wc[i].wr_id == ~0ull)
				inflight--;
		}
		if (!k)
			usleep(100);
	}
	if (sent < n || inflight)
		return -1;
	if (rdma_establish(c->id))
		return -1;
	c->rtu_sent = 1;
	/* The answers, until timeout_ms passes or the target closes. */
	deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	while (now_ns() < deadline) {
		if (peer_closed(c)) {
			/* Nothing left to disconnect in ti_rdma_finish(). */
			c->established = 0;
			*closed = 1;
			break;
		}
		k = ibv_poll_cq(c->cq, 8, wc);
		if (k < 0)
			return -1;
		for (i = 0; i < k; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return answers;
			if (wc[i].wr_id == ~0ull)
				continue;
			answers++;
			if (post_recv(c, wc[i].wr_id))
				return -1;
		}
		if (!k)
			usleep(1000);
	}
	return answers;
}

/* Clean disconnect: DREQ, then wait for the DREP (DISCONNECTED). */
static void disconnect(struct ti_conn *c)
{
	struct rdma_cm_event *ev;

	if (rdma_disconnect(c->id))
		return;
	while ((ev = next_event(c->ec, c->in.timeout_ms))) {
		enum rdma_cm_event_type t = ev->event;

		rdma_ack_cm_event(ev);
		if (t == RDMA_CM_EVENT_DISCONNECTED)
			break;
	}
}

void ti_rdma_finish(struct ti_conn *c)
{
	if (c->established) {
		switch (c->in.after) {
		case TI_AFTER_DISCONNECT:
			if (!send_rtu(c)) {
				ti_hold(c->in.hold_ms);
				disconnect(c);
			}
			break;
		case TI_AFTER_NO_RTU:
			/* The id's destruction answers the REP with a REJ,
			 * unless the target timed out first. */
			ti_hold(c->in.hold_ms);
			break;
		case TI_AFTER_REJECT_REP:
			rdma_reject(c->id, NULL, 0);
			break;
		case TI_AFTER_VANISH:
			/* Never answer a DREQ: the DREP only goes out when
			 * the id is destroyed below. */
			if (!send_rtu(c))
				ti_hold(c->in.hold_ms);
			break;
		}
	}
	if (c->qp)
		ibv_destroy_qp(c->qp);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	free(c->data);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	free(c->buf);
	free(c);
}
