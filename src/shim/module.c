// SPDX-License-Identifier: GPL-2.0
/*
 * Module entry: parameters, init and exit.
 *
 * Parameter names, types, permissions and defaults are those of the in-tree
 * ib_srpt so that existing modprobe.d configuration keeps working; the core
 * checks their ranges (srpt_core_init).
 *
 * Order: the cache of command contexts, then the work queue (the core may
 * queue work from its first call on), then the core (everything else calls
 * into it), then the target-core fabric, then the ib_client (whose add
 * callback needs both), then debugfs (whose file lists what the others
 * created). Exit unwinds in exact reverse.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

#include <srpt/abi/core.h>
#include "counters.h"
#include "fault.h"
#include "shim.h"
#include "srpt_compat.h"

struct workqueue_struct *srpt_shim_wq;

static int srp_max_req_size = 8276;
module_param(srp_max_req_size, int, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes.");

static int srpt_srq_size = 4095;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size, "Shared receive queue (SRQ) size.");

static int max_channels_per_nexus = 64;
module_param(max_channels_per_nexus, int, 0444);
MODULE_PARM_DESC(max_channels_per_nexus,
		 "Channels one I_T nexus may hold at once (MULTI logins beyond are rejected).");

static int recv_ring_cache = 8;
module_param(recv_ring_cache, int, 0444);
MODULE_PARM_DESC(recv_ring_cache,
		 "Receive rings, and command-context sets, of released channels a device keeps for its next logins (at most this many of each), each freed after 5 s unused (0: none).");

static u64 srpt_service_guid;

static int srpt_service_guid_set(const char *buffer,
				 const struct kernel_param *kp)
{
	return kstrtou64(buffer, 16, (u64 *)kp->arg);
}

/* Shows the GUID in effect, which the first device sets when it was 0. */
static int srpt_service_guid_get(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "0x%016llx\n",
		       srpt_core_service_guid(*(u64 *)kp->arg));
}

static const struct kernel_param_ops srpt_service_guid_ops = {
	.set = srpt_service_guid_set,
	.get = srpt_service_guid_get,
};
module_param_cb(srpt_service_guid, &srpt_service_guid_ops, &srpt_service_guid,
		0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Using this value for ioc_guid, id_ext, and cm_listen_id instead of using the node_guid of the first HCA.");

static int __init srpt_init_module(void)
{
	struct srpt_params params = {
		.srp_max_req_size = srp_max_req_size,
		.srpt_srq_size = srpt_srq_size,
		.srpt_service_guid = srpt_service_guid,
		.max_channels_per_nexus = max_channels_per_nexus,
		.recv_ring_cache = recv_ring_cache,
	};
	int ret;

	ret = srpt_shim_cmd_cache_create();
	if (ret)
		return ret;
	/*
	 * Channel release work sleeps for long (draining QPs and sessions),
	 * so the items must not hold up each other or the system work queue.
	 */
	srpt_shim_wq = alloc_workqueue(KBUILD_MODNAME, WQ_UNBOUND, 0);
	if (!srpt_shim_wq) {
		ret = -ENOMEM;
		goto err_cache;
	}

	ret = srpt_core_init(&params);
	if (ret)
		goto err_wq;

	ret = srpt_shim_fabric_register();
	if (ret)
		goto err_core;

	ret = srpt_shim_ib_client_register();
	if (ret)
		goto err_fabric;

	srpt_shim_debugfs_create();
	return 0;

err_fabric:
	srpt_shim_fabric_unregister();
err_core:
	srpt_core_exit();
err_wq:
	destroy_workqueue(srpt_shim_wq);
	srpt_shim_wq = NULL;
err_cache:
	srpt_shim_cmd_cache_destroy();
	return ret;
}

static void __exit srpt_cleanup_module(void)
{
	/* No RDMA/CM login may look a device up once the client is gone. */
	srpt_core_stop_rdma_cm();
	srpt_shim_debugfs_remove();
	/* No writer of ib_srpt/fault is left: what a test held goes. */
	srpt_fault_exit();
	srpt_shim_ib_client_unregister();
	srpt_shim_fabric_unregister();
	srpt_core_exit();
	/*
	 * SAFETY: after srpt_core_exit() nothing queues work any more, and no
	 * work item runs: it flushed the queue before freeing the Target
	 * (ChannelTest.ModuleExitWaitsForAReleaseWorkStillRunning).
	 */
	destroy_workqueue(srpt_shim_wq);
	srpt_shim_wq = NULL;
	srpt_shim_cmd_cache_destroy();
	srpt_counters_exit_check();
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

MODULE_AUTHOR("srpt-cxx developers");
MODULE_DESCRIPTION("SCSI RDMA Protocol target (srpt-cxx, C++ core)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SRPT_VERSION);
/* The kernel features the build found (scripts/kbuild/probe.sh). */
MODULE_INFO(srpt_probes, SRPT_PROBES);
