/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Life of the core as a whole: module parameters in, init, exit.
 */
#ifndef SRPT_ABI_CORE_H
#define SRPT_ABI_CORE_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

/* The module parameters, as the administrator gave them (unchecked). */
struct srpt_params {
	int32_t srp_max_req_size;
	int32_t srpt_srq_size;
	uint64_t srpt_service_guid;	/* 0: adopt the first device's node GUID */
	int32_t max_channels_per_nexus;	/* channels of one I_T nexus (MULTI) */
	int32_t recv_ring_cache;	/* rings, context sets a device keeps */
};

/*
 * Checks the parameters and sets the core up. Called once from module_init
 * before anything can call into the core. Returns 0 or a negative errno
 * (after logging what is wrong).
 */
int srpt_core_init(const struct srpt_params *params) SRPT_NOEXCEPT;

/*
 * Called first in module_exit, before ib_unregister_client(): destroys the
 * RDMA/CM listener (waiting for its running REQ callbacks) and refuses
 * every later discovery_auth/rdma_cm_port write, so that no RDMA/CM login
 * runs once the IB client's id, by which such a login finds its device,
 * is given back (tests/unit/abi/exit_order_check.sh). May sleep.
 */
void srpt_core_stop_rdma_cm(void) SRPT_NOEXCEPT;

/* Called once from module_exit, after every device and tport is gone. */
void srpt_core_exit(void) SRPT_NOEXCEPT;

/*
 * The service GUID in effect: the parameter, or the first device's node GUID
 * when the parameter was 0. `fallback` is returned before init and after exit.
 */
uint64_t srpt_core_service_guid(uint64_t fallback) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_CORE_H */
