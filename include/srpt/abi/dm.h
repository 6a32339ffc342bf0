/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Device Management agent of a port: what lets srp_daemon and ibsrpdm
 * find the target (IBA 16.3). The core decides on which ports to run one and
 * what each answer says (src/core/dm_agent.cpp); the shim sets the port's
 * IsDeviceManagementSupported capability, registers a GSI MAD agent for the
 * DM class (GET and SET) and moves MADs.
 */
#ifndef SRPT_ABI_DM_H
#define SRPT_ABI_DM_H

#include <srpt/abi/device.h>
#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

#define SRPT_DM_MAD_SIZE 256

struct srpt_k_dm_agent;

/*
 * Sets the capability bit and registers the agent on port_num of kdev; each
 * MAD it receives is answered through srpt_core_dm_answer(dev, port_num, ...)
 * until srpt_k_dm_agent_destroy() returns. Process context; -errno when the
 * port refuses either (then nothing is left set).
 */
int srpt_k_dm_agent_create(struct srpt_k_device *kdev, uint32_t port_num,
			   struct srpt_core_device *dev,
			   struct srpt_k_dm_agent **out) SRPT_NOEXCEPT;
/*
 * Unregisters the agent (waits for its running handlers) and clears the
 * capability bit. Process context; never with a lock the core's answer takes.
 */
void srpt_k_dm_agent_destroy(struct srpt_k_dm_agent *agent) SRPT_NOEXCEPT;

/*
 * Called from the agent's receive handler (process context): builds in rsp
 * (SRPT_DM_MAD_SIZE bytes) the GetResp to req (the MAD received, as many
 * bytes). The shim sends it back to the requester.
 */
void srpt_core_dm_answer(struct srpt_core_device *dev, uint32_t port_num,
			 const void *req, void *rsp) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_DM_H */
