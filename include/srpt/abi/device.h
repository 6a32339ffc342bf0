/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMA devices, as the shim's ib_client reports them to the core.
 *
 * The shim reads what the core needs from struct ib_device into plain
 * descriptors; the core keeps copies and an opaque handle of the device for
 * the calls it makes later. The descriptor memory belongs to the shim and is
 * valid only during the call.
 */
#ifndef SRPT_ABI_DEVICE_H
#define SRPT_ABI_DEVICE_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

enum srpt_link_layer {
	SRPT_LINK_UNSPECIFIED = 0,
	SRPT_LINK_INFINIBAND = 1,
	SRPT_LINK_ETHERNET = 2,
};

struct srpt_port_desc {
	uint32_t port_num;		/* 1-based, as the RDMA core counts */
	uint8_t gid0[16];		/* GID index 0, network byte order */
	uint8_t gid0_valid;		/* 0 when the GID query failed */
	uint8_t link_layer;		/* enum srpt_link_layer */
	uint8_t iwarp;			/* the port speaks iWARP (no MADs) */
};

struct srpt_device_desc {
	const char *name;		/* e.g. "rxe0" */
	uint64_t node_guid;		/* host byte order */
	uint32_t port_count;
	const struct srpt_port_desc *ports;
	/* The device's attributes, for the DM agent's IOControllerProfile. */
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	/* The most entries a completion queue may have, for sizing a channel's. */
	uint32_t max_cqe;
};

struct srpt_k_device;			/* the shim's handle: struct ib_device */
struct srpt_core_device;		/* the core's per-device object */

/*
 * Called from the ib_client add callback, in process context. On success
 * *out is what the shim passes to srpt_core_device_remove(); on failure the
 * core kept nothing of the device.
 */
int srpt_core_device_add(struct srpt_k_device *kdev,
			 const struct srpt_device_desc *desc,
			 struct srpt_core_device **out) SRPT_NOEXCEPT;

/*
 * Called from the ib_client remove callback. When it returns the core no
 * longer uses kdev; objects that configfs still holds (target ports) outlive
 * the device and answer -ENODEV from then on.
 */
void srpt_core_device_remove(struct srpt_core_device *dev) SRPT_NOEXCEPT;

/*
 * 1 when the port's state is ACTIVE, 0 when it is not, 1 when the query
 * fails (nothing known: nobody should wait for it). Process context.
 */
int srpt_k_port_active(struct srpt_k_device *kdev, uint32_t port_num) SRPT_NOEXCEPT;

/*
 * 1 when the port can send a MAD now: its state is ACTIVE and, on a RoCE
 * port, the network device under its GID 0 is running and has carrier.
 * 0 when it cannot. A RoCE port stays ACTIVE for a while after its network
 * device stopped (the provider learns it from NETDEV_DOWN, which comes after
 * the stop and its RCU waits), so the port state alone cannot tell. A port
 * without a network device (InfiniBand) is up when it is ACTIVE; a failed
 * query is answered as by srpt_k_port_active(). Process context.
 */
int srpt_k_port_link_up(struct srpt_k_device *kdev, uint32_t port_num) SRPT_NOEXCEPT;

/*
 * Asynchronous events of a port, as the shim's ib_event_handler sees them.
 * PORT_ERR: the port left the ACTIVE state. The others say that what the
 * core derived from the port (GID 0 and the two target port names, the DM
 * agent) may be stale and must be read again.
 */
enum srpt_port_event {
	SRPT_PORT_EVENT_ERR = 0,
	SRPT_PORT_EVENT_ACTIVE = 1,
	SRPT_PORT_EVENT_LID_CHANGE = 2,
	SRPT_PORT_EVENT_PKEY_CHANGE = 3,
	SRPT_PORT_EVENT_SM_CHANGE = 4,
	SRPT_PORT_EVENT_GID_CHANGE = 5,
	SRPT_PORT_EVENT_CLIENT_REREGISTER = 6,
	SRPT_PORT_EVENT_COUNT
};

/*
 * The device the core serves is now named `name` (ib_client's rename: `rdma
 * dev set ... name ...`). Process context; never concurrent with add or
 * remove of the same device.
 */
void srpt_core_device_rename(struct srpt_core_device *dev,
			     const char *name) SRPT_NOEXCEPT;

/*
 * An event of port `port_num` of a device the core serves (between
 * srpt_core_device_add() succeeding and srpt_core_device_remove(), which the
 * shim calls only after no event call can be running). Process context, but
 * with RDMA core locks held (its event handler lock, and for GID_CHANGE the
 * port's GID table): it must not call back into the device; it only notes
 * the event and queues work.
 */
void srpt_core_port_event(struct srpt_core_device *dev, uint32_t port_num,
			  enum srpt_port_event ev) SRPT_NOEXCEPT;

/*
 * GID index 0 of the port, read again, into gid0 (network byte order): 0,
 * or a negative errno when it cannot be read. Process context.
 */
int srpt_k_port_gid0(struct srpt_k_device *kdev, uint32_t port_num,
		     uint8_t gid0[16]) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_DEVICE_H */
