/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hostile test initiator: one login attempt over either connection
 * manager, with login bytes chosen by the caller, and what the target did.
 *
 * Two back ends implement ti_login()/ti_finish() for one CM each:
 *   rdma_cm.c  RDMA/CM from userspace (librdmacm)
 *   ib_cm.c    IB/CM through the test-only kernel module srpt_test_ibcm.ko
 *              (tests/tools/ibcm/), which builds a RoCE path record and sends
 *              the REQ from the kernel; userspace cannot send IB/CM REQs.
 * initiator.c dispatches ti_login()/ti_finish() to them; srp_initiator.c
 * (the command line) and login_fuzz.c (the guest fuzz campaign) use them.
 */
#ifndef SRPT_TEST_INITIATOR_H
#define SRPT_TEST_INITIATOR_H

#include <stddef.h>
#include <stdint.h>

enum ti_cm { TI_CM_RDMA = 1, TI_CM_IB = 2 };
/* The key of a descriptor that names the data buffer (ti_login.data_bytes). */
#define TI_DATA_KEY 0xfffffff0u

/* What the initiator does once the target answered the REQ with a REP. */
enum ti_after {
	TI_AFTER_DISCONNECT = 0, /* RTU, hold hold_ms, then DREQ (waits for DREP) */
	TI_AFTER_NO_RTU = 1,	 /* never send RTU; keep the id hold_ms, then destroy it */
	TI_AFTER_REJECT_REP = 2, /* disconnect before RTU: answer the REP with a REJ */
	TI_AFTER_VANISH = 3,	 /* RTU, then never answer again (no DREP) until ti_finish() */
};

enum ti_result {
	TI_ESTABLISHED = 0, /* REP received (priv = SRP_LOGIN_RSP) */
	TI_REJECTED = 1,    /* REJ received (priv = SRP_LOGIN_REJ, or empty) */
	TI_UNREACHABLE = 2, /* address/route resolution or the REQ itself failed */
	TI_TIMEOUT = 3,	    /* no REP or REJ within timeout_ms */
	TI_ERROR = 4,	    /* local failure of the tool; see outcome.what */
};

struct ti_login {
	enum ti_cm cm;
	const char *dev;	 /* local RDMA device ("rxe0"); IB/CM only */
	const char *addr;	 /* target IPv4/IPv6 address */
	uint16_t rdma_port;	 /* RDMA/CM: target TCP-space port */
	uint64_t service_id;	 /* IB/CM: service id (host order) */
	const uint8_t *req;	 /* login private data, any length, any bytes */
	size_t req_len;
	enum ti_after after;
	unsigned int hold_ms;
	unsigned int timeout_ms; /* for the REP/REJ; 0 = 5000 */
	/*
	 * IB/CM: how often ib_cm resends an unanswered REQ, 1..15; 0 = the
	 * tool's default of 3. ib_srp itself allows 15.
	 */
	unsigned int cm_retries;
	/*
	 * IB/CM: the CM response timeout, 4.096 us * 2^n, 1..31; 0 = the
	 * tool's 18 (about 1 s). The target's DREQ to this initiator waits
	 * that long for each answer, cm_retries + 1 times.
	 */
	unsigned int cm_timeout;
	/*
	 * RDMA/CM: receive buffers for the target's IUs, 0 = 4. More let a
	 * burst's answers land without waiting out RNR NAKs.
	 */
	unsigned int recv_slots;
	/*
	 * RDMA/CM: bytes of a buffer the target may read and write by RDMA, 0 =
	 * none. Before an IU is sent (ti_rdma_exchange), each 16-byte direct
	 * descriptor in it (va, key, len; big-endian; at any 4-byte offset)
	 * whose key is TI_DATA_KEY is made to name that buffer: its va becomes
	 * the buffer's address plus the va given, its key the buffer's rkey.
	 */
	unsigned int data_bytes;
	/*
	 * Optional: called once the REQ is ready to go (address, route and QP
	 * done), right before it is sent. --concurrent holds every thread
	 * here until all are ready, so that the REQs of a storm leave together.
	 */
	void (*before_req)(void *arg);
	void *before_req_arg;
};

struct ti_outcome {
	enum ti_result result;
	int cm_status;		 /* IB/CM reject reason (28 = consumer defined) */
	uint8_t priv[256];	 /* private data of the REP or REJ as received */
	size_t priv_len;
	uint64_t latency_ns;	 /* REQ sent to REP/REJ received */
	uint64_t sent_ns;	 /* CLOCK_MONOTONIC when the REQ was sent; 0 = never */
	char what[128];		 /* TI_ERROR/TI_UNREACHABLE: the step that failed */
};

/* Each back end's struct ti_conn begins with `enum ti_cm cm;`. */
struct ti_conn;

/*
 * Makes one login attempt and fills `out`. Returns the connection (also for
 * a rejected or failed attempt, so that ti_finish() is always called) or
 * NULL when nothing could be allocated. Thread-safe: concurrent logins run
 * one per thread.
 */
struct ti_conn *ti_login(const struct ti_login *in, struct ti_outcome *out);
/* Carries out in->after (hold, DREQ, REJ, ...) and frees the connection. */
void ti_finish(struct ti_conn *c);

/*
 * Non-zero once the user asked to end every hold early (srp_initiator: on
 * SIGUSR1). A back end that holds a connection checks it while it waits,
 * then carries on with in->after as if hold_ms had run out.
 */
int ti_hold_over(void);
/* Ends every hold from now on; async-signal-safe. */
void ti_end_holds(void);
/* Holds a connection for `ms`, or less once ti_hold_over(). */
void ti_hold(unsigned int ms);

/*
 * RDMA/CM only, after TI_ESTABLISHED: sends the RTU now (ti_finish() then
 * skips it), then sends one IU of any bytes on the connection and waits up
 * to timeout_ms for the target's answer (an IU it sends, e.g. SRP_RSP).
 * Returns the answer's length, 0 when none came (the target closed the
 * channel or stayed silent), -1 on a local failure.
 */
int ti_rdma_rtu(struct ti_conn *c);
int ti_rdma_exchange(struct ti_conn *c, const uint8_t *iu, size_t len,
		     uint8_t *rsp, size_t rsp_max, unsigned int timeout_ms);

/*
 * RDMA/CM only, after TI_ESTABLISHED and before any RTU: sends `iu` n times,
 * each taken by the target's device, then the RTU. Until the target sees
 * the RTU it holds every request, so this is how an initiator can have
 * more IUs outstanding than the credits it was granted. Then counts the
 * target's answers for timeout_ms or until it closes the connection
 * (*closed = 1). Returns the answers, -1 on a local failure.
 */
int ti_rdma_burst(struct ti_conn *c, const uint8_t *iu, size_t len, int n,
		  unsigned int timeout_ms, int *closed);

/* Back ends; ti_login() dispatches on in->cm. */
struct ti_conn *ti_rdma_login(const struct ti_login *in, struct ti_outcome *out);
void ti_rdma_finish(struct ti_conn *c);
struct ti_conn *ti_ib_login(const struct ti_login *in, struct ti_outcome *out);
void ti_ib_finish(struct ti_conn *c);

#endif /* SRPT_TEST_INITIATOR_H */
