// SPDX-License-Identifier: GPL-2.0
/*
 * Connection managers: include/srpt/abi/cm.h.
 *
 * Both CMs call their handlers in process context (work queues) and
 * serialise the callbacks of one id: IB/CM per cm_id, RDMA/CM on the id's
 * handler mutex. A new id made for a connection request inherits the
 * listener's context, which is NULL here, so events on a connection id are
 * dropped until the core sets its channel with srpt_k_cm_set_context().
 *
 * The cm handle (struct srpt_k_cm *) is the struct ib_cm_id or struct
 * rdma_cm_id itself; the kind that travels with it says which.
 */
#include <linux/if_arp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include <srpt/abi/cm.h>
#include "counters.h"
#include "fault.h"
#include "objects.h"
#include "shim.h"

/*
 * The connection parameters the in-tree ib_srpt uses: its REP/accept values
 * and the QP's RDMA read depth that goes with them.
 */
#define SRPT_K_RD_ATOMIC	4
#define SRPT_K_RNR_RETRY	7
#define SRPT_K_LISTEN_BACKLOG	128

struct srpt_k_listener {
	enum srpt_cm_kind kind;
	union {
		struct ib_cm_id *ib;
		struct rdma_cm_id *rdma;
	} id;
};

static struct ib_cm_id *srpt_k_ib_id(struct srpt_k_cm *cm)
{
	return (struct ib_cm_id *)cm;
}

static struct rdma_cm_id *srpt_k_rdma_id(struct srpt_k_cm *cm)
{
	return (struct rdma_cm_id *)cm;
}

/*
 * Bookkeeping of the ownership rule (cm.h), mechanism only: a channel sets
 * the id's context (srpt_k_cm_set_context()) exactly when it adopts the id,
 * inside the login handler. So a handler that returns non-zero for an id with
 * a context gives the CM core an id a channel will destroy again, and one
 * that returns 0 for an id without a context leaks it. Both are counted in
 * ib_srpt/objects and warned about; the return value is not changed.
 */
static int srpt_k_login_done(int ret, const void *context)
{
	if (ret)
		srpt_count_inc(SRPT_CNT_LOGIN_NONZERO);
	else
		srpt_count_inc(SRPT_CNT_LOGIN_ZERO);
	if (WARN(!ret != !!context,
		 "login handler returned %d for a cm_id %s a channel\n", ret,
		 context ? "owned by" : "not owned by")) {
		srpt_count_inc(SRPT_CNT_OWNERSHIP_BROKEN);
	}
	return ret;
}

/* --- RDMA/CM ------------------------------------------------------------ */

static u16 srpt_k_rdma_pkey(struct rdma_cm_id *id)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;

	/* Only an IPoIB hardware address carries a P_Key. */
	if (dev_addr->dev_type != ARPHRD_INFINIBAND)
		return 0xffff;
	return ib_addr_get_pkey(dev_addr);
}

static int srpt_k_rdma_login(struct rdma_cm_id *id,
			     const struct rdma_cm_event *event)
{
	struct srpt_login_event ev = {};
	struct srpt_k_device *kdev;
	char src_addr[64];
	int ret;

	kdev = srpt_shim_device_get(id->device);
	if (!kdev) {
		/* Not (or no longer) serving this device. */
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return srpt_k_login_done(-ENODEV, NULL);
	}

	snprintf(src_addr, sizeof(src_addr), "%pISc",
		 &id->route.addr.dst_addr);

	ev.kind = SRPT_CM_RDMA;
	ev.cm = (struct srpt_k_cm *)id;
	ev.kdev = kdev;
	ev.port_num = id->port_num;
	ev.pkey = srpt_k_rdma_pkey(id);
	/*
	 * SAFETY: the private data and src_addr live until this callback
	 * returns; the core copies what it keeps.
	 */
	ev.priv = event->param.conn.private_data;
	ev.priv_len = event->param.conn.private_data_len;
	ev.src_addr = src_addr;

	/*
	 * Non-zero: the core kept nothing and rejected; rdma_cm destroys the
	 * id when we return it (cm.h, the ownership rule).
	 */
	ret = srpt_core_login(&ev);
	srpt_shim_device_put(kdev);
	return srpt_k_login_done(ret, READ_ONCE(id->context));
}

static int srpt_k_rdma_cm_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *event)
{
	enum srpt_cm_event ev;
	struct srpt_core_chan *ctx;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_k_rdma_login(id, event);

	switch (event->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		ev = SRPT_CM_EV_ESTABLISHED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		ev = SRPT_CM_EV_DISCONNECT;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		ev = SRPT_CM_EV_TIMEWAIT_EXIT;
		break;
	case RDMA_CM_EVENT_REJECTED:
		ev = SRPT_CM_EV_REJECTED;
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		ev = SRPT_CM_EV_ERROR;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		ev = SRPT_CM_EV_DEVICE_REMOVAL;
		break;
	default:
		return 0;
	}

	/*
	 * SAFETY: the context is the core's channel, which destroys this id
	 * (waiting for this callback on the handler mutex) before it goes.
	 */
	ctx = READ_ONCE(id->context);
	if (ctx)
		srpt_core_cm_event(ctx, ev);
	/* Never non-zero: the channel owns the id and destroys it. */
	return 0;
}

static struct rdma_cm_id *srpt_k_rdma_bind(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_k_rdma_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = rdma_bind_addr(id, addr);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

int srpt_k_rdma_listen(uint16_t port, struct srpt_k_listener **out)
{
	struct sockaddr_in6 any6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = IN6ADDR_ANY_INIT,
		.sin6_port = htons(port),
	};
	struct sockaddr_in any4 = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(port),
	};
	struct srpt_k_listener *l;
	struct rdma_cm_id *id;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->kind = SRPT_CM_RDMA;

	/* The IPv6 wildcard also takes IPv4; without IPv6, IPv4 only. */
	id = srpt_k_rdma_bind((struct sockaddr *)&any6);
	if (IS_ERR(id))
		id = srpt_k_rdma_bind((struct sockaddr *)&any4);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_free;
	}

	ret = rdma_listen(id, SRPT_K_LISTEN_BACKLOG);
	if (ret)
		goto err_id;

	l->id.rdma = id;
	*out = l;
	return 0;

err_id:
	rdma_destroy_id(id);
err_free:
	kfree(l);
	return ret;
}

/* --- IB/CM -------------------------------------------------------------- */

static int srpt_k_ib_login(struct ib_cm_id *cm_id,
			   const struct ib_cm_req_event_param *param,
			   const void *private_data)
{
	struct srpt_login_event ev = {};
	struct srpt_k_device *kdev;
	int ret;

	kdev = srpt_shim_device_get(cm_id->device);
	if (!kdev) {
		ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0);
		return srpt_k_login_done(-ENODEV, NULL);
	}

	ev.kind = SRPT_CM_IB;
	ev.cm = (struct srpt_k_cm *)cm_id;
	ev.kdev = kdev;
	ev.port_num = param->port;
	ev.pkey = param->bth_pkey;
	/* SAFETY: the REQ's private data lives until this callback returns. */
	ev.priv = private_data;
	ev.priv_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
	ev.src_addr = "";
	/* The passive side's path: dgid is the initiator's port GID. */
	memcpy(ev.initiator_gid, param->primary_path->dgid.raw,
	       sizeof(ev.initiator_gid));

	/* Non-zero: IB/CM destroys the new cm_id when we return it. */
	ret = srpt_core_login(&ev);
	srpt_shim_device_put(kdev);
	return srpt_k_login_done(ret, READ_ONCE(cm_id->context));
}

static int srpt_k_ib_cm_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *event)
{
	enum srpt_cm_event ev;
	struct srpt_core_chan *ctx;

	if (event->event == IB_CM_REQ_RECEIVED)
		return srpt_k_ib_login(cm_id, &event->param.req_rcvd,
				       event->private_data);

	switch (event->event) {
	case IB_CM_RTU_RECEIVED:
	/*
	 * What ib_cm_notify(IB_EVENT_COMM_EST) turns into when a request
	 * arrives before the RTU; the RTU is then dropped by the CM.
	 */
	case IB_CM_USER_ESTABLISHED:
		ev = SRPT_CM_EV_ESTABLISHED;
		break;
	case IB_CM_DREQ_RECEIVED:
		ev = SRPT_CM_EV_DISCONNECT;
		break;
	case IB_CM_DREP_RECEIVED:
		ev = SRPT_CM_EV_DREP;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		ev = SRPT_CM_EV_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		ev = SRPT_CM_EV_REJECTED;
		break;
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
		ev = SRPT_CM_EV_ERROR;
		break;
	default:
		return 0;
	}

	/*
	 * SAFETY: the context is the core's channel, which destroys this
	 * cm_id (ib_destroy_cm_id() waits for this callback) before it goes.
	 */
	ctx = READ_ONCE(cm_id->context);
	if (ctx)
		srpt_core_cm_event(ctx, ev);
	/* Never non-zero: the channel owns the cm_id and destroys it. */
	return 0;
}

int srpt_k_ib_listen(struct srpt_k_device *kdev, uint64_t service_id,
		     struct srpt_k_listener **out)
{
	struct srpt_k_listener *l;
	struct ib_cm_id *id;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->kind = SRPT_CM_IB;

	id = ib_create_cm_id(kdev->ib_dev, srpt_k_ib_cm_handler, NULL);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_free;
	}

	ret = ib_cm_listen(id, cpu_to_be64(service_id));
	if (ret)
		goto err_id;

	l->id.ib = id;
	*out = l;
	return 0;

err_id:
	ib_destroy_cm_id(id);
err_free:
	kfree(l);
	return ret;
}

void srpt_k_listener_destroy(struct srpt_k_listener *l)
{
	if (!l)
		return;
	/*
	 * SAFETY: process context, and never from a CM callback of the
	 * listener (cm.h). Both calls wait for running callbacks, so no
	 * connection request is being handled when they return; connection
	 * ids made earlier are owned by channels, not by the listener.
	 */
	if (l->kind == SRPT_CM_IB)
		ib_destroy_cm_id(l->id.ib);
	else
		rdma_destroy_id(l->id.rdma);
	kfree(l);
}

/* --- connection ids ----------------------------------------------------- */

void srpt_k_cm_set_context(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
			   struct srpt_core_chan *ctx)
{
	/* Read by the handlers above, which may run on another CPU. */
	if (kind == SRPT_CM_IB)
		WRITE_ONCE(srpt_k_ib_id(cm)->context, ctx);
	else
		WRITE_ONCE(srpt_k_rdma_id(cm)->context, ctx);
}

int srpt_k_cm_reject(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     const void *priv, size_t len)
{
	/* Both CMs take at most a u8 of private data (and check the rest). */
	if (len > U8_MAX)
		return -EINVAL;
	/* As if the REJ could not be sent: nothing goes out. */
	if (srpt_fault_hit(SRPT_FAULT_CM_REJECT))
		return -EIO;
	if (kind == SRPT_CM_IB)
		return ib_send_cm_rej(srpt_k_ib_id(cm),
				      IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				      priv, len);
	return rdma_reject(srpt_k_rdma_id(cm), priv, len,
			   IB_CM_REJ_CONSUMER_DEFINED);
}

static int srpt_k_ib_accept(struct ib_cm_id *cm_id, struct srpt_k_qp *qp,
			    const void *priv, size_t len)
{
	struct ib_cm_rep_param rep = {};
	struct ib_qp_attr attr = {};
	int mask;
	int ret;

	/* The QP must be ready to receive before the REP goes out. */
	attr.qp_state = IB_QPS_RTR;
	ret = ib_cm_init_qp_attr(cm_id, &attr, &mask);
	if (ret)
		return ret;
	/* As many RDMA reads as the REP below offers (responder_resources). */
	attr.max_dest_rd_atomic = SRPT_K_RD_ATOMIC;
	ret = srpt_shim_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;

	rep.qp_num = qp->ib_qp->qp_num;
	rep.private_data = priv;
	rep.private_data_len = len;
	rep.responder_resources = SRPT_K_RD_ATOMIC;
	rep.initiator_depth = SRPT_K_RD_ATOMIC;
	rep.failover_accepted = 0;
	rep.flow_control = 1;
	rep.rnr_retry_count = SRPT_K_RNR_RETRY;
	return ib_send_cm_rep(cm_id, &rep);
}

static int srpt_k_rdma_accept(struct rdma_cm_id *id, const void *priv,
			      size_t len)
{
	struct rdma_conn_param param = {
		.private_data = priv,
		.private_data_len = len,
		.responder_resources = SRPT_K_RD_ATOMIC,
		.initiator_depth = SRPT_K_RD_ATOMIC,
		.flow_control = 1,
		.rnr_retry_count = SRPT_K_RNR_RETRY,
	};

	/*
	 * SAFETY: rdma_accept() must run under the id's handler mutex, i.e.
	 * inside the CONNECT_REQUEST callback (srpt_core_login()). The QP was
	 * made with rdma_create_qp(), so rdma_cm moves it to RTR and RTS.
	 */
	return rdma_accept(id, &param);
}

int srpt_k_cm_accept(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
		     struct srpt_k_qp *qp, const void *priv, size_t len)
{
	if (len > U8_MAX)
		return -EINVAL;
	/* As if the REP could not be sent: nothing goes out, the QP stays. */
	if (srpt_fault_hit(SRPT_FAULT_CM_ACCEPT))
		return -EIO;
	if (kind == SRPT_CM_IB)
		return srpt_k_ib_accept(srpt_k_ib_id(cm), qp, priv, len);
	return srpt_k_rdma_accept(srpt_k_rdma_id(cm), priv, len);
}

int srpt_k_cm_disconnect(enum srpt_cm_kind kind, struct srpt_k_cm *cm,
			 int reply)
{
	if (kind == SRPT_CM_IB) {
		struct ib_cm_id *cm_id = srpt_k_ib_id(cm);

		return reply ? ib_send_cm_drep(cm_id, NULL, 0) :
			       ib_send_cm_dreq(cm_id, NULL, 0);
	}
	/* rdma_cm picks DREQ or DREP itself and moves the QP to error. */
	return rdma_disconnect(srpt_k_rdma_id(cm));
}

void srpt_k_cm_destroy(enum srpt_cm_kind kind, struct srpt_k_cm *cm)
{
	/*
	 * SAFETY: process context and not this id's own callback (cm.h):
	 * both calls wait for a running callback of the id, which would be
	 * ourselves. The id's QP was destroyed before (queue.h), so no QP
	 * event can reach the id any more.
	 */
	srpt_count_inc(SRPT_CNT_CM_DESTROYED);
	/* Only a channel destroys connection ids, and it set their context. */
	if (WARN(!(kind == SRPT_CM_IB ? srpt_k_ib_id(cm)->context :
				       srpt_k_rdma_id(cm)->context),
		 "destroying a cm_id no channel owns\n"))
		srpt_count_inc(SRPT_CNT_OWNERSHIP_BROKEN);
	if (kind == SRPT_CM_IB)
		ib_destroy_cm_id(srpt_k_ib_id(cm));
	else
		rdma_destroy_id(srpt_k_rdma_id(cm));
}
