/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debugfs protocol of srpt_test_ibcm.ko, shared by the module and its
 * userspace callers (tests/tools/ib_cm.c).
 *
 * /sys/kernel/debug/srpt_test_ibcm/login: every open file is one login.
 *  1. write() exactly one struct srpt_ibcm_req: the module resolves the
 *     destination, builds the RoCE path record, creates an RC QP and sends
 *     the IB/CM REQ with priv[] as private data. A malformed request fails
 *     with EINVAL, an unknown device with ENODEV, a second write with EBUSY
 *     (each with a kernel log line). Failing to resolve the destination or
 *     to send the REQ is not an error of write(): it is the outcome
 *     SRPT_IBCM_UNREACHABLE.
 *  2. read() a struct srpt_ibcm_outcome (the buffer must hold one). The
 *     first read blocks until the target answered (REP or REJ), the CM gave
 *     up, or timeout_ms passed since the REQ; later reads return at once
 *     with the current flags. Reading before a request was written: EINVAL.
 *  3. What happens on a REP depends on `after` (below) and is done by the
 *     module before the outcome becomes readable.
 *  4. close(): finishes the login. DISCONNECT: DREQ, then waits (at most
 *     timeout_ms) for the DREP or the CM's time-out; every mode then
 *     destroys the cm_id, the QP, CQ and PD. Holding a login open for a
 *     while is the caller's business: keep the file open.
 * Many open files are many concurrent logins. The module cannot be unloaded
 * while a file is open (the file holds a module reference).
 */
#ifndef SRPT_IBCM_UAPI_H
#define SRPT_IBCM_UAPI_H

#include <linux/types.h>

#define SRPT_IBCM_LOGIN_PATH "/sys/kernel/debug/srpt_test_ibcm/login"
#define SRPT_IBCM_VERSION 1

#define SRPT_IBCM_DEV_MAX 64	   /* IB_DEVICE_NAME_MAX */
#define SRPT_IBCM_REQ_PRIV_MAX 92  /* IB/CM REQ private data */
#define SRPT_IBCM_OUT_PRIV_MAX 196 /* IB/CM REP private data (REJ: 148) */
#define SRPT_IBCM_ARI_MAX 72	   /* REJ additional rejection information */
#define SRPT_IBCM_WHAT_MAX 64

/* What the module does once the target answered the REQ with a REP. */
enum srpt_ibcm_after {
	SRPT_IBCM_AFTER_DISCONNECT = 0, /* QP to RTS, RTU; DREQ at close */
	SRPT_IBCM_AFTER_NO_RTU = 1,	/* nothing; the id lives until close */
	SRPT_IBCM_AFTER_REJECT_REP = 2, /* REJ (consumer defined) instead of RTU */
	SRPT_IBCM_AFTER_VANISH = 3,	/* QP to RTS, RTU, then ignore DREQs until close */
};

/* Numbered as enum ti_result (tests/tools/initiator.h). */
enum srpt_ibcm_result {
	SRPT_IBCM_ESTABLISHED = 0, /* REP received; priv = its private data */
	SRPT_IBCM_REJECTED = 1,	   /* REJ received; status = CM reject reason */
	SRPT_IBCM_UNREACHABLE = 2, /* resolution or sending the REQ failed; status = -errno */
	SRPT_IBCM_TIMEOUT = 3,	   /* no answer: status = 0 (timeout_ms passed) or the CM's send status */
	SRPT_IBCM_ERROR = 4,	   /* local failure (QP, RTU); status = -errno */
};

enum srpt_ibcm_gid_type {
	SRPT_IBCM_GID_ROCE_V2 = 0, /* what RDMA/CM picks for an IP destination */
	SRPT_IBCM_GID_ROCE_V1 = 1, /* forced: the source GID of type RoCE v1 */
};

struct srpt_ibcm_req {
	__u32 version;		/* SRPT_IBCM_VERSION */
	__u32 timeout_ms;	/* for resolution and for the REP/REJ; 0 = 5000, at most 600000 */
	__u64 service_id;	/* host byte order */
	char dev[SRPT_IBCM_DEV_MAX]; /* RDMA device, NUL-terminated ("rxe0") */
	__u8 dst[16];		/* AF_INET: the 4 address bytes first; AF_INET6: 16 bytes */
	__u16 family;		/* AF_INET (2) or AF_INET6 (10) */
	__u8 port;		/* RDMA port number, 1.. */
	__u8 after;		/* enum srpt_ibcm_after */
	__u8 gid_type;		/* enum srpt_ibcm_gid_type */
	__u8 cm_response_timeout; /* 4.096 us * 2^n, 1..31; 0 = 18 (about 1 s) */
	__u8 max_cm_retries;	/* 1..15; 0 = 3 */
	__u8 priv_len;		/* 0..92; the CM pads the REQ with zeros */
	__u8 priv[SRPT_IBCM_REQ_PRIV_MAX];
	__u32 reserved;		/* must be 0 */
};

/* Flags of struct srpt_ibcm_outcome. */
#define SRPT_IBCM_F_RTU_SENT	(1u << 0)
#define SRPT_IBCM_F_REJ_SENT	(1u << 1) /* REJ answering the REP (or a late REP) */
#define SRPT_IBCM_F_DREQ_RCVD	(1u << 2) /* the target sent a DREQ */
#define SRPT_IBCM_F_DREP_SENT	(1u << 3)
#define SRPT_IBCM_F_DISC_DONE	(1u << 4) /* DREP received, or the DREQ/time-wait ended */

struct srpt_ibcm_outcome {
	__u32 result;		/* enum srpt_ibcm_result */
	__s32 status;		/* see enum srpt_ibcm_result */
	__u64 latency_ns;	/* REQ sent to REP/REJ/timeout */
	__u32 priv_len;		/* 196 for a REP, 148 for a REJ: the CM's fixed sizes */
	__u32 ari_len;
	__u8 priv[SRPT_IBCM_OUT_PRIV_MAX];
	__u8 ari[SRPT_IBCM_ARI_MAX];
	char what[SRPT_IBCM_WHAT_MAX]; /* the step that failed, NUL-terminated */
	__u32 local_qpn;
	__u32 remote_qpn;	/* from the REP */
	__u32 flags;		/* SRPT_IBCM_F_* */
	__u32 reserved;
};

#endif /* SRPT_IBCM_UAPI_H */
