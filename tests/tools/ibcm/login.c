// SPDX-License-Identifier: GPL-2.0
/*
 * One IB/CM login as an SRP initiator makes it on a RoCE port: an RC QP of
 * our own (its number and a starting PSN go into the REQ), the REQ with the
 * caller's bytes as private data, then RTU, REJ or nothing once the REP
 * arrives (enum srpt_ibcm_after), and DREQ/DREP or a silent id at the end.
 *
 * The CM serialises the callbacks of one cm_id and runs them in process
 * context. The callback never returns non-zero: this module owns the cm_id
 * and destroys it itself, from release, never from its own callback.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "ibcm.h"

#define IBCM_DEFAULT_TIMEOUT_MS 5000
#define IBCM_MAX_TIMEOUT_MS 600000
#define IBCM_DEFAULT_CM_TIMEOUT 18
#define IBCM_DEFAULT_CM_RETRIES 3
/* As ib_srp asks: RDMA read depth both ways, and infinite RNR retries. */
#define IBCM_RD_ATOMIC 4
#define IBCM_RETRY 7
#define IBCM_QP_DEPTH 4

struct ibcm_login *ibcm_login_alloc(void)
{
	struct ibcm_login *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return NULL;
	mutex_init(&l->lock);
	spin_lock_init(&l->state_lock);
	init_waitqueue_head(&l->wait);
	return l;
}

/* Caller holds state_lock. Sets the final result once; later calls lose. */
static bool ibcm_decide(struct ibcm_login *l, u32 result, s32 status,
			const char *what)
{
	if (l->decided)
		return false;
	l->decided = true;
	l->out.result = result;
	l->out.status = status;
	l->out.latency_ns = ktime_to_ns(ktime_sub(ktime_get(), l->sent));
	if (what)
		strscpy(l->out.what, what, sizeof(l->out.what));
	return true;
}

static void ibcm_set_flags(struct ibcm_login *l, u32 flags)
{
	spin_lock(&l->state_lock);
	l->out.flags |= flags;
	spin_unlock(&l->state_lock);
	wake_up_all(&l->wait);
}

/* INIT, RTR, RTS with the attributes the CM derives from REQ and REP. */
static int ibcm_qp_to_rts(struct ibcm_login *l)
{
	static const enum ib_qp_state states[] = {
		IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS
	};
	struct ib_qp_attr attr;
	int i, mask, ret;

	for (i = 0; i < ARRAY_SIZE(states); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = states[i];
		ret = ib_cm_init_qp_attr(l->cm_id, &attr, &mask);
		if (ret)
			return ret;
		ret = ib_modify_qp(l->qp, &attr, mask);
		if (ret)
			return ret;
	}
	return 0;
}

static void ibcm_rep_received(struct ibcm_login *l,
			      const struct ib_cm_event *event)
{
	u32 result = SRPT_IBCM_ESTABLISHED, flags = 0;
	const char *what = NULL;
	s32 status = 0;
	bool late;
	int ret;

	spin_lock(&l->state_lock);
	late = l->decided;
	if (!late) {
		memcpy(l->out.priv, event->private_data,
		       IB_CM_REP_PRIVATE_DATA_SIZE);
		l->out.priv_len = IB_CM_REP_PRIVATE_DATA_SIZE;
		l->out.remote_qpn = event->param.rep_rcvd.remote_qpn;
	}
	spin_unlock(&l->state_lock);

	if (late) {
		/* The caller already saw a time-out: refuse the connection. */
		if (!ib_send_cm_rej(l->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				    NULL, 0, NULL, 0))
			ibcm_set_flags(l, SRPT_IBCM_F_REJ_SENT);
		return;
	}

	switch (l->req.after) {
	case SRPT_IBCM_AFTER_DISCONNECT:
	case SRPT_IBCM_AFTER_VANISH:
		ret = ibcm_qp_to_rts(l);
		if (ret) {
			ib_send_cm_rej(l->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				       NULL, 0, NULL, 0);
			result = SRPT_IBCM_ERROR;
			status = ret;
			what = "QP to RTS after the REP";
			flags = SRPT_IBCM_F_REJ_SENT;
			break;
		}
		ret = ib_send_cm_rtu(l->cm_id, NULL, 0);
		if (ret) {
			result = SRPT_IBCM_ERROR;
			status = ret;
			what = "sending the RTU";
			break;
		}
		flags = SRPT_IBCM_F_RTU_SENT;
		break;
	case SRPT_IBCM_AFTER_REJECT_REP:
		ret = ib_send_cm_rej(l->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				     NULL, 0, NULL, 0);
		if (ret) {
			result = SRPT_IBCM_ERROR;
			status = ret;
			what = "sending the REJ for the REP";
			break;
		}
		flags = SRPT_IBCM_F_REJ_SENT;
		break;
	case SRPT_IBCM_AFTER_NO_RTU:
		/* The id stays in REP_RCVD until release destroys it. */
		break;
	}

	spin_lock(&l->state_lock);
	l->out.flags |= flags;
	ibcm_decide(l, result, status, what);
	spin_unlock(&l->state_lock);
	wake_up_all(&l->wait);
}

static void ibcm_rej_received(struct ibcm_login *l,
			      const struct ib_cm_event *event)
{
	const struct ib_cm_rej_event_param *rej = &event->param.rej_rcvd;
	u32 ari_len = min_t(u32, rej->ari_length, SRPT_IBCM_ARI_MAX);

	spin_lock(&l->state_lock);
	/* A REJ after the REP (no RTU) or after a time-out changes nothing. */
	if (!l->decided) {
		memcpy(l->out.priv, event->private_data,
		       IB_CM_REJ_PRIVATE_DATA_SIZE);
		l->out.priv_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		if (rej->ari)
			memcpy(l->out.ari, rej->ari, ari_len);
		l->out.ari_len = rej->ari ? ari_len : 0;
		ibcm_decide(l, SRPT_IBCM_REJECTED, rej->reason, NULL);
	}
	spin_unlock(&l->state_lock);
	wake_up_all(&l->wait);
}

static int ibcm_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *event)
{
	struct ibcm_login *l = cm_id->context;

	switch (event->event) {
	case IB_CM_REP_RECEIVED:
		ibcm_rep_received(l, event);
		break;
	case IB_CM_REJ_RECEIVED:
		ibcm_rej_received(l, event);
		break;
	case IB_CM_REQ_ERROR:
		spin_lock(&l->state_lock);
		ibcm_decide(l, SRPT_IBCM_TIMEOUT, event->param.send_status,
			    "REQ unanswered: CM retries exhausted");
		spin_unlock(&l->state_lock);
		wake_up_all(&l->wait);
		break;
	case IB_CM_DREQ_RECEIVED:
		/* Vanish: no DREP, the target's DREQ runs into its time-out. */
		if (l->req.after == SRPT_IBCM_AFTER_VANISH) {
			ibcm_set_flags(l, SRPT_IBCM_F_DREQ_RCVD);
			break;
		}
		if (!ib_send_cm_drep(cm_id, NULL, 0))
			ibcm_set_flags(l, SRPT_IBCM_F_DREQ_RCVD |
					  SRPT_IBCM_F_DREP_SENT |
					  SRPT_IBCM_F_DISC_DONE);
		else
			ibcm_set_flags(l, SRPT_IBCM_F_DREQ_RCVD);
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
		ibcm_set_flags(l, SRPT_IBCM_F_DISC_DONE);
		break;
	default:
		/* MRA, RTU (never for the active side), LAP/APR: nothing. */
		break;
	}
	return 0;
}

static int ibcm_req_check(const struct srpt_ibcm_req *req, const char **why)
{
	if (req->version != SRPT_IBCM_VERSION)
		*why = "unknown version";
	else if (!memchr(req->dev, '\0', sizeof(req->dev)) || !req->dev[0])
		*why = "device name empty or not NUL-terminated";
	else if (req->family != AF_INET && req->family != AF_INET6)
		*why = "family is neither AF_INET nor AF_INET6";
	else if (!req->port)
		*why = "port 0";
	else if (req->after > SRPT_IBCM_AFTER_VANISH)
		*why = "unknown after mode";
	else if (req->gid_type > SRPT_IBCM_GID_ROCE_V1)
		*why = "unknown GID type";
	else if (req->cm_response_timeout > 31)
		*why = "cm_response_timeout above 31";
	else if (req->max_cm_retries > 15)
		*why = "max_cm_retries above 15";
	else if (req->priv_len > SRPT_IBCM_REQ_PRIV_MAX)
		*why = "private data longer than 92 bytes";
	else if (req->timeout_ms > IBCM_MAX_TIMEOUT_MS)
		*why = "timeout_ms above 600000";
	else if (req->reserved)
		*why = "reserved field not zero";
	else
		return 0;
	return -EINVAL;
}

static void ibcm_dst(const struct srpt_ibcm_req *req,
		     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (req->family == AF_INET) {
		struct sockaddr_in *in4 = (struct sockaddr_in *)ss;

		in4->sin_family = AF_INET;
		memcpy(&in4->sin_addr, req->dst, 4);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, req->dst, 16);
	}
}

/* The QP the REQ names. Its resources are released by ibcm_login_finish(). */
static int ibcm_qp_create(struct ibcm_login *l, const char **what)
{
	struct ib_qp_init_attr init = {};

	l->pd = ib_alloc_pd(l->dev, 0);
	if (IS_ERR(l->pd)) {
		*what = "allocating the PD";
		return PTR_ERR(l->pd);
	}
	l->cq = ib_alloc_cq(l->dev, NULL, 2 * IBCM_QP_DEPTH, 0,
			    IB_POLL_WORKQUEUE);
	if (IS_ERR(l->cq)) {
		*what = "allocating the CQ";
		return PTR_ERR(l->cq);
	}
	init.send_cq = l->cq;
	init.recv_cq = l->cq;
	init.cap.max_send_wr = IBCM_QP_DEPTH;
	init.cap.max_recv_wr = IBCM_QP_DEPTH;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.port_num = l->req.port;
	l->qp = ib_create_qp(l->pd, &init);
	if (IS_ERR(l->qp)) {
		*what = "creating the RC QP";
		return PTR_ERR(l->qp);
	}
	l->out.local_qpn = l->qp->qp_num;
	return 0;
}

/*
 * Resolve, create the QP and the cm_id, send the REQ. A failure after the
 * request was accepted becomes the outcome (UNREACHABLE or ERROR); the
 * objects made so far stay for ibcm_login_finish() to release.
 */
static int ibcm_connect(struct ibcm_login *l)
{
	struct ib_cm_req_param p = {};
	struct sockaddr_storage dst;
	struct ibcm_path path = {};
	u32 result = SRPT_IBCM_UNREACHABLE;
	const char *what = NULL;
	unsigned long timeout;
	u8 cm_timeout, retries;
	int ret;

	timeout = l->req.timeout_ms ?: IBCM_DEFAULT_TIMEOUT_MS;
	cm_timeout = l->req.cm_response_timeout ?: IBCM_DEFAULT_CM_TIMEOUT;
	retries = l->req.max_cm_retries ?: IBCM_DEFAULT_CM_RETRIES;

	ibcm_dst(&l->req, &dst);
	ret = ibcm_path_resolve(l->dev, l->req.port, (struct sockaddr *)&dst,
				l->req.gid_type == SRPT_IBCM_GID_ROCE_V1 ?
					IB_GID_TYPE_ROCE :
					IB_GID_TYPE_ROCE_UDP_ENCAP,
				timeout, &path, &what);
	if (ret)
		goto fail;

	result = SRPT_IBCM_ERROR;
	ret = ibcm_qp_create(l, &what);
	if (ret)
		goto put_gid;

	l->cm_id = ib_create_cm_id(l->dev, ibcm_cm_handler, l);
	if (IS_ERR(l->cm_id)) {
		ret = PTR_ERR(l->cm_id);
		l->cm_id = NULL;
		what = "creating the cm_id";
		goto put_gid;
	}

	p.primary_path = &path.rec;
	p.ppath_sgid_attr = path.sgid_attr;
	p.service_id = cpu_to_be64(l->req.service_id);
	p.qp_num = l->qp->qp_num;
	p.qp_type = IB_QPT_RC;
	p.starting_psn = get_random_u32() & 0xffffff;
	p.private_data = l->req.priv;
	p.private_data_len = l->req.priv_len;
	p.responder_resources = IBCM_RD_ATOMIC;
	p.initiator_depth = IBCM_RD_ATOMIC;
	p.remote_cm_response_timeout = cm_timeout;
	p.local_cm_response_timeout = cm_timeout;
	p.flow_control = 1;
	p.retry_count = IBCM_RETRY;
	p.rnr_retry_count = IBCM_RETRY;
	p.max_cm_retries = retries;

	/* Callbacks may run from here on; `sent` and `deadline` come first. */
	l->sent = ktime_get();
	l->deadline = jiffies + msecs_to_jiffies(timeout);
	ret = ib_send_cm_req(l->cm_id, &p);
	if (ret) {
		result = SRPT_IBCM_UNREACHABLE;
		what = "sending the REQ";
	}
put_gid:
	/* The CM holds its own reference on the GID for the address vector. */
	rdma_put_gid_attr(path.sgid_attr);
	if (!ret)
		return 0;
fail:
	pr_info(IBCM_PFX "login to service 0x%llx on %s/%u: %s failed (%d)\n",
		l->req.service_id, l->req.dev, l->req.port, what, ret);
	spin_lock(&l->state_lock);
	if (!l->sent)
		l->sent = ktime_get();
	ibcm_decide(l, result, ret, what);
	spin_unlock(&l->state_lock);
	wake_up_all(&l->wait);
	return 0;
}

int ibcm_login_start(struct ibcm_login *l, const struct srpt_ibcm_req *req)
{
	const char *why;
	int ret;

	ret = ibcm_req_check(req, &why);
	if (ret) {
		pr_info(IBCM_PFX "bad login request: %s\n", why);
		return ret;
	}

	mutex_lock(&l->lock);
	if (l->started) {
		pr_info(IBCM_PFX "bad login request: this file already sent one\n");
		ret = -EBUSY;
		goto out;
	}
	l->dev = ibcm_device_get(req->dev);
	if (!l->dev) {
		pr_info(IBCM_PFX "bad login request: no RDMA device %.*s\n",
			SRPT_IBCM_DEV_MAX, req->dev);
		ret = -ENODEV;
		goto out;
	}
	if (!rdma_is_port_valid(l->dev, req->port) ||
	    !rdma_protocol_roce(l->dev, req->port)) {
		pr_info(IBCM_PFX "bad login request: %s has no RoCE port %u\n",
			req->dev, req->port);
		ib_device_put(l->dev);
		l->dev = NULL;
		ret = -EINVAL;
		goto out;
	}
	l->req = *req;
	l->started = true;
	ret = ibcm_connect(l);
out:
	mutex_unlock(&l->lock);
	return ret;
}

int ibcm_login_wait(struct ibcm_login *l, struct srpt_ibcm_outcome *out)
{
	long left;

	mutex_lock(&l->lock);
	if (!l->started) {
		mutex_unlock(&l->lock);
		pr_info(IBCM_PFX "read before a login request was written\n");
		return -EINVAL;
	}
	mutex_unlock(&l->lock);

	/* `started` never goes back; `deadline` is set before it. */
	left = (long)(l->deadline - jiffies);
	left = wait_event_interruptible_timeout(l->wait, READ_ONCE(l->decided),
						max(left, 0L));
	if (left < 0)
		return left;

	spin_lock(&l->state_lock);
	ibcm_decide(l, SRPT_IBCM_TIMEOUT, 0, "no REP or REJ within timeout_ms");
	*out = l->out;
	spin_unlock(&l->state_lock);
	return 0;
}

static bool ibcm_disc_done(struct ibcm_login *l)
{
	bool done;

	spin_lock(&l->state_lock);
	done = l->out.flags & SRPT_IBCM_F_DISC_DONE;
	spin_unlock(&l->state_lock);
	return done;
}

void ibcm_login_finish(struct ibcm_login *l)
{
	unsigned long timeout = l->req.timeout_ms ?: IBCM_DEFAULT_TIMEOUT_MS;
	u32 flags;

	spin_lock(&l->state_lock);
	flags = l->out.flags;
	spin_unlock(&l->state_lock);

	if (l->cm_id && l->req.after == SRPT_IBCM_AFTER_DISCONNECT &&
	    (flags & SRPT_IBCM_F_RTU_SENT) &&
	    !(flags & SRPT_IBCM_F_DREQ_RCVD)) {
		if (!ib_send_cm_dreq(l->cm_id, NULL, 0) &&
		    !wait_event_timeout(l->wait, ibcm_disc_done(l),
					msecs_to_jiffies(timeout)))
			pr_info(IBCM_PFX "no DREP within %lu ms\n", timeout);
	}
	/* Waits for running callbacks; none runs after it returns. */
	if (l->cm_id)
		ib_destroy_cm_id(l->cm_id);
	if (!IS_ERR_OR_NULL(l->qp))
		ib_destroy_qp(l->qp);
	if (!IS_ERR_OR_NULL(l->cq))
		ib_free_cq(l->cq);
	if (!IS_ERR_OR_NULL(l->pd))
		ib_dealloc_pd(l->pd);
	if (l->dev)
		ib_device_put(l->dev);
	kfree(l);
}
