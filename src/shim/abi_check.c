// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time checks that the numbers the C++ core uses (it cannot include
 * kernel headers) are the kernel's.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <rdma/ib_verbs.h>

#include <srpt/abi/cmd.h>
#include <srpt/abi/device.h>
#include <srpt/abi/types.h>

static_assert(SRPT_EPERM == EPERM);
static_assert(SRPT_ENOENT == ENOENT);
static_assert(SRPT_EIO == EIO);
static_assert(SRPT_ENOMEM == ENOMEM);
static_assert(SRPT_EBUSY == EBUSY);
static_assert(SRPT_EEXIST == EEXIST);
static_assert(SRPT_ENODEV == ENODEV);
static_assert(SRPT_EINVAL == EINVAL);
static_assert(SRPT_ESHUTDOWN == ESHUTDOWN);
static_assert(SRPT_ENOSPC == ENOSPC);
static_assert(SRPT_ERANGE == ERANGE);
static_assert(SRPT_ENAMETOOLONG == ENAMETOOLONG);
static_assert(SRPT_EOPNOTSUPP == EOPNOTSUPP);
static_assert(SRPT_ECONNREFUSED == ECONNREFUSED);
static_assert(SRPT_ETIMEDOUT == ETIMEDOUT);
/* target_setup_session() refuses an initiator without an ACL with it. */
static_assert(SRPT_EACCES == EACCES);
static_assert(SRPT_EADDRINUSE == EADDRINUSE);

/* srpt_core_cmd_rdma_done() passes ib_wc_status as a number. */
static_assert(SRPT_WC_SUCCESS == IB_WC_SUCCESS);
static_assert(SRPT_WC_WR_FLUSH_ERR == IB_WC_WR_FLUSH_ERR);

static_assert(sizeof(((struct srpt_port_desc *)0)->gid0) ==
	      sizeof(union ib_gid));
