/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_test_ibcm.ko internals: one login per open debugfs file. */
#ifndef SRPT_TEST_IBCM_H
#define SRPT_TEST_IBCM_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "ibcm_uapi.h"

#define IBCM_PFX "srpt_test_ibcm: "

/*
 * devices.c: an RDMA device by name, with a registration reference (put with
 * ib_device_put()), or NULL.
 */
struct ib_device *ibcm_device_get(const char *name);
int ibcm_devices_init(void);
void ibcm_devices_exit(void);

/* path.c: the RoCE path to an IP destination, as RDMA/CM would build it. */
struct ibcm_path {
	struct sa_path_rec rec;
	/* Holds a reference: put with rdma_put_gid_attr(). */
	const struct ib_gid_attr *sgid_attr;
};

int ibcm_path_resolve(struct ib_device *dev, u32 port,
		      const struct sockaddr *dst, enum ib_gid_type gid_type,
		      unsigned long timeout_ms, struct ibcm_path *out,
		      const char **what);

/*
 * login.c. Lifetime: created at open, freed at release. The file side (write,
 * read, release) is serialised by `lock`; the CM callbacks run concurrently
 * with it and share only `out`, `decided` and the flags, under `state_lock`.
 * The cm_id is destroyed before the QP, CQ and PD (ib_destroy_cm_id() waits
 * for running callbacks, which use the QP), and the device reference is
 * dropped last.
 */
struct ibcm_login {
	struct mutex lock;
	bool started;			/* a request was written */
	struct srpt_ibcm_req req;
	unsigned long deadline;		/* jiffies: REP/REJ wait ends */
	ktime_t sent;

	struct ib_device *dev;		/* reference from ib_device_get_by_name() */
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_cm_id *cm_id;

	spinlock_t state_lock;
	wait_queue_head_t wait;
	bool decided;			/* out.result is final */
	struct srpt_ibcm_outcome out;
};

struct ibcm_login *ibcm_login_alloc(void);
int ibcm_login_start(struct ibcm_login *l, const struct srpt_ibcm_req *req);
int ibcm_login_wait(struct ibcm_login *l, struct srpt_ibcm_outcome *out);
void ibcm_login_finish(struct ibcm_login *l);

#endif /* SRPT_TEST_IBCM_H */
