// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_client: tells the core about every RDMA device, present at load or
 * added later, about its ports' asynchronous events, and about its removal.
 *
 * The RDMA core calls add and remove in process context and never
 * concurrently for the same device; remove runs for every device still added
 * when the client unregisters, so after ib_unregister_client() the core holds
 * no device.
 *
 * The handle the core gets is the shim's struct srpt_k_device (objects.h),
 * which is also the client data that cm.c looks up for connection requests.
 */
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include <srpt/abi/device.h>
#include "objects.h"
#include "shim.h"

static struct ib_client srpt_ib_client;

static void srpt_k_device_release(struct kref *ref)
{
	struct srpt_k_device *kdev = container_of(ref, struct srpt_k_device,
						  ref);

	/*
	 * SAFETY: srpt_shim_device_get() may still be looking at the object
	 * (it found it in the client data before remove cleared that), but
	 * only inside an RCU read-side section; it cannot revive a zero kref.
	 */
	kfree_rcu(kdev, rcu);
}

struct srpt_k_device *srpt_shim_device_get(struct ib_device *ib_dev)
{
	struct srpt_k_device *kdev;

	rcu_read_lock();
	/*
	 * SAFETY: the client data is set before the core learns of the
	 * device and cleared at the start of remove; the object it points to
	 * is freed with kfree_rcu() only after its last reference is gone, so
	 * it is valid here and kref_get_unless_zero() decides whether it is
	 * still in service.
	 */
	kdev = ib_get_client_data(ib_dev, &srpt_ib_client);
	if (kdev && !kref_get_unless_zero(&kdev->ref))
		kdev = NULL;
	rcu_read_unlock();
	return kdev;
}

void srpt_shim_device_put(struct srpt_k_device *kdev)
{
	kref_put(&kdev->ref, srpt_k_device_release);
}

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

static int srpt_port_event_of(enum ib_event_type type,
			      enum srpt_port_event *ev)
{
	switch (type) {
	case IB_EVENT_PORT_ERR:
		*ev = SRPT_PORT_EVENT_ERR;
		return 0;
	case IB_EVENT_PORT_ACTIVE:
		*ev = SRPT_PORT_EVENT_ACTIVE;
		return 0;
	case IB_EVENT_LID_CHANGE:
		*ev = SRPT_PORT_EVENT_LID_CHANGE;
		return 0;
	case IB_EVENT_PKEY_CHANGE:
		*ev = SRPT_PORT_EVENT_PKEY_CHANGE;
		return 0;
	case IB_EVENT_SM_CHANGE:
		*ev = SRPT_PORT_EVENT_SM_CHANGE;
		return 0;
	case IB_EVENT_GID_CHANGE:
		*ev = SRPT_PORT_EVENT_GID_CHANGE;
		return 0;
	case IB_EVENT_CLIENT_REREGISTER:
		*ev = SRPT_PORT_EVENT_CLIENT_REREGISTER;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Runs from the RDMA core's event work with its event handler lock held
 * (and the port's GID table lock for GID_CHANGE): the core only notes the
 * event and refreshes the port from its own work.
 */
static void srpt_k_event_handler(struct ib_event_handler *handler,
				 struct ib_event *event)
{
	struct srpt_k_device *kdev =
		container_of(handler, struct srpt_k_device, event_handler);
	u32 port = event->element.port_num;
	struct srpt_core_device *core;
	enum srpt_port_event ev;

	if (srpt_port_event_of(event->event, &ev)) {
		pr_debug("%s: event %s not followed\n",
			 dev_name(&kdev->ib_dev->dev),
			 ib_event_msg(event->event));
		return;
	}
	/*
	 * Before the core has the device, the event is noted for add to hand
	 * over. Noting, then looking again, against add's publishing, then
	 * taking the notes: every event reaches the core at least once (a
	 * second refresh of a port is harmless).
	 */
	core = smp_load_acquire(&kdev->core);
	if (!core) {
		set_bit(port < BITS_PER_LONG ? port : 0, &kdev->early_events);
		smp_mb__after_atomic();
		core = smp_load_acquire(&kdev->core);
		if (!core)
			return;
	}
	/*
	 * SAFETY: the core took the device, and it is unregistered (which
	 * waits for running handlers) before srpt_core_device_remove().
	 */
	srpt_core_port_event(core, port, ev);
}

/* Hands the core the port events seen before it took the device. */
static void srpt_k_replay_early_events(struct srpt_k_device *kdev,
				       struct srpt_core_device *core)
{
	unsigned long seen;
	u32 port;

	smp_mb();
	seen = xchg(&kdev->early_events, 0);
	rdma_for_each_port(kdev->ib_dev, port) {
		if ((port < BITS_PER_LONG && test_bit(port, &seen)) ||
		    test_bit(0, &seen))
			srpt_core_port_event(core, port, SRPT_PORT_EVENT_GID_CHANGE);
	}
}

static int srpt_ib_add_one(struct ib_device *device)
{
	struct srpt_core_device *core;
	struct srpt_k_device *kdev;
	struct srpt_device_desc desc;
	struct srpt_port_desc *ports;
	union ib_gid gid;
	unsigned int i = 0;
	u32 port;
	int ret;

	kdev = kzalloc(sizeof(*kdev), GFP_KERNEL);
	if (!kdev)
		return -ENOMEM;
	kref_init(&kdev->ref);
	kdev->ib_dev = device;

	kdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(kdev->pd)) {
		ret = PTR_ERR(kdev->pd);
		goto err_free;
	}

	ports = kcalloc(rdma_end_port(device) - rdma_start_port(device) + 1,
			sizeof(*ports), GFP_KERNEL);
	if (!ports) {
		ret = -ENOMEM;
		goto err_pd;
	}
	/* Before the ports are read: a GID change or a port coming up after. */
	INIT_IB_EVENT_HANDLER(&kdev->event_handler, device,
			      srpt_k_event_handler);
	ib_register_event_handler(&kdev->event_handler);

	rdma_for_each_port(device, port) {
		ports[i].port_num = port;
		ports[i].link_layer = srpt_link_layer_of(device, port);
		ports[i].iwarp = rdma_protocol_iwarp(device, port);
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
	desc.vendor_id = device->attrs.vendor_id;
	desc.vendor_part_id = device->attrs.vendor_part_id;
	desc.hw_ver = device->attrs.hw_ver;
	desc.max_qp_wr = device->attrs.max_qp_wr;
	desc.max_cqe = device->attrs.max_cqe;

	/*
	 * Published before the core hears of the device, so that connection
	 * requests on the listeners the core creates during the call below
	 * find it. The core answers requests for a device it does not (or
	 * no longer) know by rejecting them.
	 */
	ib_set_client_data(device, &srpt_ib_client, kdev);

	/* SAFETY: the core only keeps kdev; it stays valid until remove. */
	ret = srpt_core_device_add(kdev, &desc, &core);
	kfree(ports);
	if (ret) {
		pr_err("%s: not served (error %d)\n", dev_name(&device->dev),
		       ret);
		goto err_client_data;
	}
	smp_store_release(&kdev->core, core);
	srpt_k_replay_early_events(kdev, core);
	return 0;

err_client_data:
	ib_set_client_data(device, &srpt_ib_client, NULL);
	ib_unregister_event_handler(&kdev->event_handler);
err_pd:
	/*
	 * SAFETY: the core kept nothing of the device, so nothing was created
	 * on the PD; a CM callback that still holds a reference on kdev only
	 * hands it to a core that rejects it.
	 */
	ib_dealloc_pd(kdev->pd);
err_free:
	srpt_shim_device_put(kdev);
	return ret;
}

static void srpt_ib_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_k_device *kdev = client_data;

	/*
	 * No port event reaches the core from here on: unregistering waits
	 * for a handler that is running.
	 */
	ib_unregister_event_handler(&kdev->event_handler);
	/* New connection requests no longer find the device. */
	ib_set_client_data(device, &srpt_ib_client, NULL);

	srpt_core_device_remove(kdev->core);

	/*
	 * SAFETY: srpt_core_device_remove() returned, so the core destroyed
	 * every QP, CQ, ring and listener it made on this device.
	 */
	ib_dealloc_pd(kdev->pd);
	srpt_shim_device_put(kdev);
}

int srpt_k_port_active(struct srpt_k_device *kdev, uint32_t port_num)
{
	struct ib_port_attr attr;

	if (ib_query_port(kdev->ib_dev, port_num, &attr))
		return 1;
	return attr.state == IB_PORT_ACTIVE;
}

int srpt_k_port_link_up(struct srpt_k_device *kdev, uint32_t port_num)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int up;

	if (!srpt_k_port_active(kdev, port_num))
		return 0;
	if (!rdma_protocol_roce(kdev->ib_dev, port_num))
		return 1;
	/*
	 * A RoCE port's GID 0 names its network device; no GID 0 means no
	 * link to send on.
	 */
	attr = rdma_get_gid_attr(kdev->ib_dev, port_num, 0);
	if (IS_ERR(attr))
		return 0;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	/* SAFETY: the RCU read lock keeps ndev alive until the unlock. */
	up = !IS_ERR(ndev) && netif_running(ndev) && netif_carrier_ok(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return up;
}

int srpt_k_port_gid0(struct srpt_k_device *kdev, uint32_t port_num,
		     uint8_t gid0[16])
{
	union ib_gid gid;
	int ret = rdma_query_gid(kdev->ib_dev, port_num, 0, &gid);

	if (ret)
		return ret;
	memcpy(gid0, gid.raw, sizeof(gid.raw));
	return 0;
}

/*
 * `rdma dev set NAME name NEW`: the RDMA core calls this for every client
 * whose add succeeded, in process context and never beside that device's
 * add or remove.
 */
static void srpt_ib_rename_one(struct ib_device *device, void *client_data)
{
	struct srpt_k_device *kdev = client_data;

	if (!kdev)
		return;
	srpt_core_device_rename(kdev->core, dev_name(&device->dev));
}

static struct ib_client srpt_ib_client = {
	.name = KBUILD_MODNAME,
	.add = srpt_ib_add_one,
	.remove = srpt_ib_remove_one,
	.rename = srpt_ib_rename_one,
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
