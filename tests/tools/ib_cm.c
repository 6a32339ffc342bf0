// SPDX-License-Identifier: GPL-2.0
/*
 * IB/CM back end of the test initiator (initiator.h): one login is one open
 * file of srpt_test_ibcm.ko's debugfs file (tests/tools/ibcm/ibcm_uapi.h),
 * which sends the REQ from the kernel on the RDMA device's RoCE port 1.
 * The module needs debugfs mounted and itself loaded (insmod
 * build/tools/$(uname -r)/srpt_test_ibcm.ko).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "initiator.h"
#include "ibcm/ibcm_uapi.h"

struct ti_conn {
	enum ti_cm cm; /* TI_CM_IB; first, as initiator.h requires */
	int fd;
	unsigned int hold_ms;
	int established;
};

_Static_assert((int)SRPT_IBCM_ESTABLISHED == TI_ESTABLISHED &&
		       (int)SRPT_IBCM_REJECTED == TI_REJECTED &&
		       (int)SRPT_IBCM_UNREACHABLE == TI_UNREACHABLE &&
		       (int)SRPT_IBCM_TIMEOUT == TI_TIMEOUT &&
		       (int)SRPT_IBCM_ERROR == TI_ERROR,
	       "the module's results are numbered as enum ti_result");
_Static_assert((int)SRPT_IBCM_AFTER_DISCONNECT == TI_AFTER_DISCONNECT &&
		       (int)SRPT_IBCM_AFTER_NO_RTU == TI_AFTER_NO_RTU &&
		       (int)SRPT_IBCM_AFTER_REJECT_REP == TI_AFTER_REJECT_REP &&
		       (int)SRPT_IBCM_AFTER_VANISH == TI_AFTER_VANISH,
	       "the module's after modes are numbered as enum ti_after");

static struct ti_conn *fail(struct ti_conn *c, struct ti_outcome *out,
			    enum ti_result r, const char *step, int err)
{
	out->result = r;
	snprintf(out->what, sizeof(out->what), "%s: %s", step, strerror(err));
	return c;
}

struct ti_conn *ti_ib_login(const struct ti_login *in, struct ti_outcome *out)
{
	struct srpt_ibcm_outcome o;
	struct srpt_ibcm_req req;
	struct ti_conn *c;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cm = TI_CM_IB;
	c->fd = -1;
	c->hold_ms = in->hold_ms;

	memset(&req, 0, sizeof(req));
	req.version = SRPT_IBCM_VERSION;
	req.timeout_ms = in->timeout_ms;
	req.max_cm_retries = in->cm_retries;
	req.cm_response_timeout = in->cm_timeout;
	req.service_id = in->service_id;
	snprintf(req.dev, sizeof(req.dev), "%s", in->dev ? in->dev : "rxe0");
	req.port = 1;
	req.after = in->after;
	if (inet_pton(AF_INET, in->addr, req.dst) == 1)
		req.family = AF_INET;
	else if (inet_pton(AF_INET6, in->addr, req.dst) == 1)
		req.family = AF_INET6;
	else
		return fail(c, out, TI_ERROR, "not an IPv4/IPv6 address", EINVAL);
	if (in->req_len > SRPT_IBCM_REQ_PRIV_MAX)
		return fail(c, out, TI_ERROR,
			    "login bytes exceed the IB/CM REQ's 92 bytes", EMSGSIZE);
	req.priv_len = in->req_len;
	memcpy(req.priv, in->req, in->req_len);

	c->fd = open(SRPT_IBCM_LOGIN_PATH, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return fail(c, out, TI_ERROR,
			    "open " SRPT_IBCM_LOGIN_PATH " (srpt_test_ibcm loaded?)",
			    errno);
	n = write(c->fd, &req, sizeof(req));
	if (n != (ssize_t)sizeof(req))
		return fail(c, out, TI_ERROR, "login request (see kernel log)",
			    n < 0 ? errno : EIO);
	do
		n = read(c->fd, &o, sizeof(o));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(o))
		return fail(c, out, TI_ERROR, "reading the outcome",
			    n < 0 ? errno : EIO);

	out->result = o.result <= TI_ERROR ? (enum ti_result)o.result : TI_ERROR;
	out->cm_status = o.status;
	out->priv_len = o.priv_len < sizeof(out->priv) ? o.priv_len : sizeof(out->priv);
	memcpy(out->priv, o.priv, out->priv_len);
	out->latency_ns = o.latency_ns;
	snprintf(out->what, sizeof(out->what), "%s", o.what);
	c->established = out->result == TI_ESTABLISHED;
	return c;
}

void ti_ib_finish(struct ti_conn *c)
{
	if (!c)
		return;
	/* Hold only what was established: RTU'd, no-RTU or vanished. */
	if (c->fd >= 0 && c->established && c->hold_ms)
		ti_hold(c->hold_ms);
	/* The module sends the DREQ (disconnect) and destroys everything. */
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}
