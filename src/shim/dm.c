// SPDX-License-Identifier: GPL-2.0
/*
 * The Device Management agent of a port (include/srpt/abi/dm.h): the port's
 * IsDeviceManagementSupported capability and a GSI MAD agent for the DM
 * class. Each GET or SET is answered by the core; every other method of the
 * class reaches the core too, which answers "unsupported method".
 *
 * Lifetime: a response MAD and its address handle belong to the MAD layer
 * from ib_post_send_mad() until the send handler, which frees both. The
 * agent's context (this struct) outlives every handler:
 * ib_unregister_mad_agent() returns only after the running ones finished
 * and cancels the sends still queued (their send handler runs first).
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include <srpt/abi/dm.h>
#include "fault.h"
#include "objects.h"
#include "shim.h"

struct srpt_k_dm_agent {
	struct srpt_k_device *kdev;
	struct srpt_core_device *dev;
	struct ib_mad_agent *mad_agent;
	u32 port_num;
};

static void srpt_dm_send_handler(struct ib_mad_agent *mad_agent,
				 struct ib_mad_send_wc *mad_wc)
{
	rdma_destroy_ah(mad_wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(mad_wc->send_buf);
}

static void srpt_dm_recv_handler(struct ib_mad_agent *mad_agent,
				 struct ib_mad_send_buf *send_buf,
				 struct ib_mad_recv_wc *mad_wc)
{
	struct srpt_k_dm_agent *agent = mad_agent->context;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;

	if (!mad_wc || !mad_wc->recv_buf.mad)
		return;

	ah = ib_create_ah_from_wc(mad_agent->qp->pd, mad_wc->wc,
				  mad_wc->recv_buf.grh, mad_agent->port_num);
	if (IS_ERR(ah))
		goto free_recv;

	BUILD_BUG_ON(IB_MGMT_DEVICE_HDR + IB_MGMT_DEVICE_DATA !=
		     SRPT_DM_MAD_SIZE);
	rsp = ib_create_send_mad(mad_agent, mad_wc->wc->src_qp,
				 mad_wc->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto destroy_ah;
	rsp->ah = ah;

	/* SAFETY: both MADs are SRPT_DM_MAD_SIZE bytes (a received MAD is
	 * at least IB_MGMT_MAD_SIZE, the size BUILD_BUG_ON checks above). */
	srpt_core_dm_answer(agent->dev, agent->port_num, mad_wc->recv_buf.mad,
			    rsp->mad);

	if (!ib_post_send_mad(rsp, NULL)) {
		/* The send handler destroys the AH and frees rsp. */
		ib_free_recv_mad(mad_wc);
		return;
	}
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
free_recv:
	ib_free_recv_mad(mad_wc);
}

static int srpt_dm_port_cap(struct srpt_k_device *kdev, u32 port_num,
			    bool set)
{
	struct ib_port_modify mod = {};

	if (set)
		mod.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		mod.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	return ib_modify_port(kdev->ib_dev, port_num, 0, &mod);
}

int srpt_k_dm_agent_create(struct srpt_k_device *kdev, uint32_t port_num,
			   struct srpt_core_device *dev,
			   struct srpt_k_dm_agent **out)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct srpt_k_dm_agent *agent;
	int ret;

	agent = srpt_shim_kmalloc(sizeof(*agent), GFP_KERNEL | __GFP_ZERO);
	if (!agent)
		return -ENOMEM;
	agent->kdev = kdev;
	agent->dev = dev;
	agent->port_num = port_num;

	if (srpt_fault_hit(SRPT_FAULT_DM_PORT_CAP))
		ret = -ENOMEM;
	else
		ret = srpt_dm_port_cap(kdev, port_num, true);
	if (ret)
		goto free;

	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, req.method_mask);
	if (srpt_fault_hit(SRPT_FAULT_DM_AGENT))
		agent->mad_agent = ERR_PTR(-ENOMEM);
	else
		agent->mad_agent = ib_register_mad_agent(kdev->ib_dev, port_num,
							 IB_QPT_GSI, &req, 0,
							 srpt_dm_send_handler,
							 srpt_dm_recv_handler,
							 agent, 0);
	if (IS_ERR(agent->mad_agent)) {
		ret = PTR_ERR(agent->mad_agent);
		goto clear_cap;
	}
	*out = agent;
	return 0;

clear_cap:
	srpt_dm_port_cap(kdev, port_num, false);
free:
	srpt_shim_kfree(agent);
	return ret;
}

void srpt_k_dm_agent_destroy(struct srpt_k_dm_agent *agent)
{
	if (!agent)
		return;
	ib_unregister_mad_agent(agent->mad_agent);
	srpt_dm_port_cap(agent->kdev, agent->port_num, false);
	srpt_shim_kfree(agent);
}
