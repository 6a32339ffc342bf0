/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection managers: IB/CM and RDMA/CM, behind one interface.
 *
 * THE OWNERSHIP RULE. A connection request arrives in a CM callback with a
 * new cm_id. The shim hands it to srpt_core_login() and returns its result
 * from the callback:
 *   0         the core's channel owns the cm_id from now on and will destroy
 *             it exactly once, later, from process context (never from the
 *             cm_id's own callback: rdma_destroy_id() there deadlocks);
 *   non-zero  the core kept nothing: it already sent the reject, and the CM
 *             core destroys the cm_id when the callback returns.
 * After a channel owns the cm_id, every later failure of the login is torn
 * down through the channel and srpt_core_login() still returns 0.
 */
#ifndef SRPT_ABI_CM_H
#define SRPT_ABI_CM_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

enum srpt_cm_kind {
	SRPT_CM_IB = 1,		/* struct ib_cm_id */
	SRPT_CM_RDMA = 2,	/* struct rdma_cm_id */
};

/* An IB/CM or RDMA/CM id, per the kind that travels with it. */
struct srpt_k_cm;
/*
 * The core's channel, as the shim holds it: the context the core sets on a
 * cm_id, a QP and a session, given back in their callbacks. Opaque, and
 * distinct from the core's command (struct srpt_core_cmd, cmd.h): passing
 * one for the other does not compile (tests/unit/abi/).
 */
struct srpt_core_chan;
struct srpt_k_device;
struct srpt_k_qp;

/* A connection request, as the shim read it from the CM event. */
struct srpt_login_event {
	enum srpt_cm_kind kind;
	struct srpt_k_cm *cm;
	struct srpt_k_device *kdev;
	uint32_t port_num;
	uint16_t pkey;
	const uint8_t *priv;	/* CM private data: the login request */
	size_t priv_len;	/* as received; may be short or garbage */
	/* RDMA/CM: the initiator's address as text ("192.0.2.2", "fe80::1"), else "". */
	const char *src_addr;
	/*
	 * IB/CM: the initiator's port GID, from the REQ's primary path (what
	 * the fabric says, not what the login bytes claim); RDMA/CM: zeros.
	 */
	uint8_t initiator_gid[16];
};

/* The login handler. Process context (CM callbacks run in work queues). */
int srpt_core_login(const struct srpt_login_event *ev) SRPT_NOEXCEPT;

/* Events on a cm_id owned by a channel: the one the core set on it. */
enum srpt_cm_event {
	SRPT_CM_EV_ESTABLISHED = 1,	/* IB/CM RTU, RDMA/CM ESTABLISHED */
	SRPT_CM_EV_DISCONNECT = 2,	/* DREQ received / RDMA/CM DISCONNECTED */
	SRPT_CM_EV_DREP = 3,		/* our DREQ was answered */
	SRPT_CM_EV_TIMEWAIT_EXIT = 4,
	SRPT_CM_EV_REJECTED = 5,	/* REJ after our REP */
	SRPT_CM_EV_ERROR = 6,		/* REP/RTU timeout, unreachable, DREQ error */
	SRPT_CM_EV_DEVICE_REMOVAL = 7,
};
void srpt_core_cm_event(struct srpt_core_chan *ch,
			enum srpt_cm_event ev) SRPT_NOEXCEPT;

/* Associates the channel with the cm_id for srpt_core_cm_event(). */
void srpt_k_cm_set_context(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
			   struct srpt_core_chan *ch) SRPT_NOEXCEPT;
/* Sends a CM reject carrying `priv` (an SRP_LOGIN_REJ) as private data. */
int srpt_k_cm_reject(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     const void *priv, size_t len) SRPT_NOEXCEPT;
/*
 * Accepts with `priv` (an SRP_LOGIN_RSP) as private data. IB/CM: moves the
 * QP to RTR and sends the REP; RDMA/CM: rdma_accept(), which does both and
 * must run inside srpt_core_login() (it needs the id's handler mutex).
 */
int srpt_k_cm_accept(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     struct srpt_k_qp *qp, const void *priv,
		     size_t len) SRPT_NOEXCEPT;
/* Starts a disconnect (IB/CM DREQ or DREP; RDMA/CM rdma_disconnect). */
int srpt_k_cm_disconnect(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
			 int reply) SRPT_NOEXCEPT;
/*
 * Process context, never from this cm_id's own callback (it waits for that
 * callback). After srpt_k_qp_destroy() of the QP made on this cm_id.
 */
void srpt_k_cm_destroy(enum srpt_cm_kind kind, struct srpt_k_cm *cm) SRPT_NOEXCEPT;

/* RDMA/CM listener on all addresses of `port` (IPv6 wildcard, else IPv4). */
struct srpt_k_listener;
int srpt_k_rdma_listen(uint16_t port, struct srpt_k_listener **out) SRPT_NOEXCEPT;
/* IB/CM listener of one device on `service_id`. */
int srpt_k_ib_listen(struct srpt_k_device *kdev, uint64_t service_id,
		     struct srpt_k_listener **out) SRPT_NOEXCEPT;
/* Waits for running callbacks; process context. */
void srpt_k_listener_destroy(struct srpt_k_listener *l) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_CM_H */
