// SPDX-License-Identifier: GPL-2.0
/*
 * floor_server: the floor of the login benchmarks. It accepts every RDMA/CM
 * connection request with a private-data reply of the size of an
 * SRP_LOGIN_RSP and does nothing else: no parsing of the request, no SRP
 * session, no buffers beyond the smallest QP a connection needs. No SRP
 * target can log an initiator in faster or with less memory than this on the
 * same fabric, except by being in the kernel (this server pays the user/kernel
 * round trip of the CM events; a kernel target does not).
 *
 *   floor_server [--port N] [--rsp-len N] [--backlog N] [--ready FILE]
 *
 * Listens on the IPv4 wildcard (TCP port space). Each request gets a QP of one
 * send and one receive work request on a CQ shared by all connections, and an
 * rdma_accept whose private data is rsp-len bytes (default 52) with the first
 * byte 0xc0 (the SRP_LOGIN_RSP opcode, so that a tool that checks the opcode
 * accepts it). A DISCONNECTED event is answered with rdma_disconnect (the
 * DREP) and the connection is freed. --ready FILE is written once listening.
 * SIGTERM or SIGINT ends it; it then prints one summary line:
 *   floor_server accepted=N failed=N disconnected=N
 */
#include <errno.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The largest private data an RDMA/CM accept can carry over IB/RoCE. */
#define FLOOR_MAX_RSP 196

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One PD and CQ per RDMA device: the first connection on a device makes them. */
struct floor_dev {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static struct floor_dev devs[8];

static struct floor_dev *dev_of(struct ibv_context *verbs)
{
	size_t i;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		struct floor_dev *d = &devs[i];

		if (d->verbs == verbs)
			return d;
		if (d->verbs)
			continue;
		d->pd = ibv_alloc_pd(verbs);
		if (!d->pd)
			return NULL;
		d->cq = ibv_create_cq(verbs, 16, NULL, NULL, 0);
		if (!d->cq) {
			ibv_dealloc_pd(d->pd);
			d->pd = NULL;
			return NULL;
		}
		d->verbs = verbs;
		return d;
	}
	return NULL;
}

static unsigned long accepted, failed, disconnected;

/*
 * A connection request: a minimal QP and the accept. Returns non-zero when
 * the request was not accepted; the caller then destroys the id (after
 * acknowledging the event).
 */
static int accept_one(struct rdma_cm_id *id, const uint8_t *rsp, size_t rsp_len)
{
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qpa;
	struct floor_dev *d = dev_of(id->verbs);

	if (!d)
		return -1;
	memset(&qpa, 0, sizeof(qpa));
	qpa.send_cq = qpa.recv_cq = d->cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = qpa.cap.max_recv_wr = 1;
	qpa.cap.max_send_sge = qpa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, d->pd, &qpa))
		return -1;
	memset(&param, 0, sizeof(param));
	param.private_data = rsp;
	param.private_data_len = (uint8_t)rsp_len;
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.rnr_retry_count = 7;
	if (rdma_accept(id, &param)) {
		rdma_destroy_qp(id);
		return -1;
	}
	return 0;
}

static void release(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listener;
	uint8_t rsp[FLOOR_MAX_RSP];
	const char *ready = NULL;
	size_t rsp_len = 52;
	int port = 5555, backlog = 1024, i;
	struct sigaction sa;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rsp-len") && i + 1 < argc)
			rsp_len = (size_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--backlog") && i + 1 < argc)
			backlog = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			ready = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--port N] [--rsp-len N] [--backlog N] [--ready FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (rsp_len < 1 || rsp_len > FLOOR_MAX_RSP || port <= 0 || port > 65535) {
		fprintf(stderr, "floor_server: --rsp-len must be 1..%d, --port 1..65535\n",
			FLOOR_MAX_RSP);
		return 2;
	}
	memset(rsp, 0, sizeof(rsp));
	rsp[0] = 0xc0;

	/* As srp_initiator: no huge pages, so memory counts repeat. */
	(void)prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP)) {
		perror("floor_server: rdma_create_id");
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (rdma_bind_addr(listener, (struct sockaddr *)&sin)) {
		perror("floor_server: rdma_bind_addr");
		return 2;
	}
	/* The kernel counts unacknowledged requests against the backlog and
	 * rejects beyond it (net.rdma_ucm.max_backlog caps it, 1024 by
	 * default): a storm of 256 must fit. */
	if (rdma_listen(listener, backlog)) {
		perror("floor_server: rdma_listen");
		return 2;
	}
	fprintf(stderr, "floor_server: listening on port %d, reply %zu bytes\n",
		port, rsp_len);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}

	while (!stop) {
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		enum rdma_cm_event_type type;

		if (rdma_get_cm_event(ec, &ev)) {
			if (errno == EINTR)
				continue;
			perror("floor_server: rdma_get_cm_event");
			break;
		}
		id = ev->id;
		type = ev->event;
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (accept_one(id, rsp, rsp_len)) {
				failed++;
				rdma_reject(id, NULL, 0);
				rdma_ack_cm_event(ev);
				release(id);
				continue;
			}
			accepted++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* The initiator's DREQ: answer it (DREP), then free. */
			disconnected++;
			rdma_disconnect(id);
			rdma_ack_cm_event(ev);
			release(id);
			continue;
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			/* The initiator went away between our REP and its RTU. */
			if (id != listener) {
				failed++;
				rdma_ack_cm_event(ev);
				release(id);
				continue;
			}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	printf("floor_server accepted=%lu failed=%lu disconnected=%lu\n",
	       accepted, failed, disconnected);
	return 0;
}
