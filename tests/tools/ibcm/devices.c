// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices by name, from an ib_client that sees each device come and go.
 * ib_device_get_by_name() would do, but it is not in every kernel's headers
 * (gone from 7.x), and a client works the same on all of them.
 *
 * A device is on the list between the client's add and remove callbacks.
 * ibcm_device_get() takes a registration reference (ib_device_try_get())
 * under the lock, so the device cannot finish unregistering while a login
 * holds it: the core waits for every such reference before it is gone.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ibcm.h"

struct ibcm_device {
	struct list_head node;
	struct ib_device *dev;
};

static DEFINE_MUTEX(ibcm_devices_lock);
static LIST_HEAD(ibcm_devices);

static int ibcm_device_add(struct ib_device *dev)
{
	struct ibcm_device *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->dev = dev;
	mutex_lock(&ibcm_devices_lock);
	list_add_tail(&d->node, &ibcm_devices);
	mutex_unlock(&ibcm_devices_lock);
	return 0;
}

static void ibcm_device_remove(struct ib_device *dev, void *client_data)
{
	struct ibcm_device *d, *tmp;

	mutex_lock(&ibcm_devices_lock);
	list_for_each_entry_safe(d, tmp, &ibcm_devices, node) {
		if (d->dev == dev) {
			list_del(&d->node);
			kfree(d);
		}
	}
	mutex_unlock(&ibcm_devices_lock);
}

static struct ib_client ibcm_client = {
	.name = "srpt_test_ibcm",
	.add = ibcm_device_add,
	.remove = ibcm_device_remove,
};

struct ib_device *ibcm_device_get(const char *name)
{
	struct ib_device *found = NULL;
	struct ibcm_device *d;

	mutex_lock(&ibcm_devices_lock);
	list_for_each_entry(d, &ibcm_devices, node) {
		if (!strcmp(dev_name(&d->dev->dev), name) &&
		    ib_device_try_get(d->dev)) {
			found = d->dev;
			break;
		}
	}
	mutex_unlock(&ibcm_devices_lock);
	return found;
}

int ibcm_devices_init(void)
{
	return ib_register_client(&ibcm_client);
}

void ibcm_devices_exit(void)
{
	ib_unregister_client(&ibcm_client);
}
