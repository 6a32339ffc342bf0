// SPDX-License-Identifier: GPL-2.0
/*
 * srp_login: sends one SRP_LOGIN_REQ over RDMA/CM and reports what the
 * target answered. A test tool for the guest cases (and the seed of the
 * hostile test initiator): it lets a case log in as any initiator port id,
 * with any flags, which ib_srp cannot be made to do.
 *
 *   srp_login ADDR PORT I_PORT_ID(32 hex) SERVICE_GUID(16 hex) [single|multi] [HOLD_S]
 *
 * Prints one line:
 *   established rsp_flags=0xNN req_lim_delta=N max_it_iu_len=N max_ti_iu_len=N
 *   rejected status=N reason=0xNNNNNNNN      (reason 0 when no SRP_LOGIN_REJ)
 *   error <what>
 * and exits 0 for established, 1 for rejected, 2 for errors. With HOLD_S the
 * connection stays up that many seconds before a clean disconnect, unless
 * the target disconnects first: then the tool exits at once and sends
 * nothing more. (A DREQ of its own sent while the test has the link down
 * would put rxe's GSI QP in the error state for good: case 51.)
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct rdma_event_channel *ec;

static struct rdma_cm_event *wait_event(void)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ec, &ev)) {
		printf("error rdma_get_cm_event\n");
		exit(2);
	}
	return ev;
}

/*
 * Holds the connection up to `seconds`; true when the target disconnected
 * meanwhile (its DREQ was answered by the CM).
 */
static bool peer_disconnected_within(int seconds)
{
	const time_t end = time(NULL) + seconds;
	struct pollfd p = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	bool gone;
	time_t now;

	while ((now = time(NULL)) < end) {
		if (poll(&p, 1, (int)(end - now) * 1000) <= 0)
			continue;
		ev = wait_event();
		gone = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
		if (gone)
			return true;
	}
	return false;
}

static void expect(enum rdma_cm_event_type want, const char *what)
{
	struct rdma_cm_event *ev = wait_event();

	if (ev->event != want) {
		printf("error %s: %s (status %d)\n", what,
		       rdma_event_str(ev->event), ev->status);
		exit(2);
	}
	rdma_ack_cm_event(ev);
}

static int parse_hex(const char *s, uint8_t *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = {0};
	struct ibv_qp_init_attr qpa = {0};
	struct addrinfo *ai, hints = {0};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint8_t req[56] = {0}, guid[8];
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	int hold = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s ADDR PORT I_PORT_ID SERVICE_GUID [single|multi] [HOLD_S]\n",
			argv[0]);
		return 2;
	}
	/* The 56-byte RDMA/CM form: tag 0, req_buf_fmt 8, req_flags 10,
	 * opcode 11, req_it_iu_len 12, initiator_port_id 16,
	 * target_port_id 32 (id_ext || ioc_guid), imm_data_offset 48. */
	memcpy(req, "srplogin", 8);
	req[9] = 0x06;				/* direct | indirect */
	req[10] = argc > 5 && !strcmp(argv[5], "multi") ? 1 : 0;
	req[11] = 0x00;				/* SRP_LOGIN_REQ */
	req[14] = 0x20; req[15] = 0x44;		/* 8260 */
	if (parse_hex(argv[3], req + 16, 16) || parse_hex(argv[4], guid, 8)) {
		printf("error bad port id or GUID\n");
		return 2;
	}
	memcpy(req + 32, guid, 8);
	memcpy(req + 40, guid, 8);
	if (argc > 6)
		hold = atoi(argv[6]);

	hints.ai_family = AF_UNSPEC;
	if (getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		printf("error address\n");
		return 2;
	}
	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		printf("error rdma_create_id\n");
		return 2;
	}
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000)) {
		printf("error rdma_resolve_addr\n");
		return 2;
	}
	expect(RDMA_CM_EVENT_ADDR_RESOLVED, "resolving the address");
	if (rdma_resolve_route(id, 2000)) {
		printf("error rdma_resolve_route\n");
		return 2;
	}
	expect(RDMA_CM_EVENT_ROUTE_RESOLVED, "resolving the route");

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	qpa.send_cq = qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = qpa.cap.max_recv_wr = 4;
	qpa.cap.max_send_sge = qpa.cap.max_recv_sge = 1;
	if (!cq || rdma_create_qp(id, pd, &qpa)) {
		printf("error creating the QP\n");
		return 2;
	}

	param.private_data = req;
	param.private_data_len = sizeof(req);
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param)) {
		printf("error rdma_connect\n");
		return 2;
	}
	ev = wait_event();
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		const uint8_t *rsp = ev->param.conn.private_data;

		if (ev->param.conn.private_data_len < 52 || rsp[0] != 0xc0) {
			printf("error established without an SRP_LOGIN_RSP\n");
			return 2;
		}
		printf("established rsp_flags=0x%02x req_lim_delta=%u max_it_iu_len=%u max_ti_iu_len=%u\n",
		       rsp[26], be32(rsp + 4), be32(rsp + 16), be32(rsp + 20));
		fflush(stdout);
		rdma_ack_cm_event(ev);
		if (!peer_disconnected_within(hold))
			rdma_disconnect(id);
		return 0;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const uint8_t *rej = ev->param.conn.private_data;
		uint32_t reason = 0;

		if (rej && ev->param.conn.private_data_len >= 32 && rej[0] == 0xc2)
			reason = be32(rej + 4);
		printf("rejected status=%d reason=0x%08x\n", ev->status, reason);
		return 1;
	}
	printf("error connect: %s (status %d)\n", rdma_event_str(ev->event),
	       ev->status);
	return 2;
}
