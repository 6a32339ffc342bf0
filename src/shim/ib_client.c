// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_client: tells the core about every RDMA device, present at load or
 * added later, and about its removal.
 *
 * The RDMA core calls add and remove in process context and never
 * concurrently for the same device; remove runs for every device still added
 * when the client unregisters, so after ib_unregister_client() the core holds
 * no device.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include <srpt/abi/device.h>
#include "shim.h"

static struct ib_client srpt_ib_client;

static u8 srpt_link_layer_of(struct ib_device *device, u32 port)
{
	switch (rdma_port_get_link_layer(device, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		return SRPT_LINK_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return SRPT_LINK_ETHERNET;
	default:
		return SRPT_LINK_UNSPECIFIED;
	}
}

static int srpt_ib_add_one(struct ib_device *device)
{
	struct srpt_core_device *core_dev;
	struct srpt_device_desc desc;
	struct srpt_port_desc *ports;
	union ib_gid gid;
	unsigned int i = 0;
	u32 port;
	int ret;

	ports = kcalloc(rdma_end_port(device) - rdma_start_port(device) + 1,
			sizeof(*ports), GFP_KERNEL);
	if (!ports)
		return -ENOMEM;

	rdma_for_each_port(device, port) {
		ports[i].port_num = port;
		ports[i].link_layer = srpt_link_layer_of(device, port);
		if (!rdma_query_gid(device, port, 0, &gid)) {
			memcpy(ports[i].gid0, gid.raw, sizeof(ports[i].gid0));
			ports[i].gid0_valid = 1;
		}
		i++;
	}

	desc.name = dev_name(&device->dev);
	desc.node_guid = be64_to_cpu(device->node_guid);
	desc.port_count = i;
	desc.ports = ports;

	/* SAFETY: the core only stores the handle; it is valid until remove. */
	ret = srpt_core_device_add((struct srpt_k_device *)device, &desc,
				   &core_dev);
	kfree(ports);
	if (ret) {
		pr_err("%s: not served (error %d)\n", dev_name(&device->dev),
		       ret);
		return ret;
	}
	ib_set_client_data(device, &srpt_ib_client, core_dev);
	return 0;
}

static void srpt_ib_remove_one(struct ib_device *device, void *client_data)
{
	srpt_core_device_remove(client_data);
}

static struct ib_client srpt_ib_client = {
	.name = KBUILD_MODNAME,
	.add = srpt_ib_add_one,
	.remove = srpt_ib_remove_one,
};

int srpt_shim_ib_client_register(void)
{
	int ret = ib_register_client(&srpt_ib_client);

	if (ret)
		pr_err("ib_register_client() failed: %d\n", ret);
	return ret;
}

void srpt_shim_ib_client_unregister(void)
{
	ib_unregister_client(&srpt_ib_client);
}
