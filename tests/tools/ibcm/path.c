// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE path record for an IP destination, built the way the RDMA/CM core
 * does before it sends an IB/CM REQ on a RoCE port: resolve the route and
 * the neighbour (source address, egress netdev, destination MAC, hop limit),
 * take the source GID of that address and type on the port, and fill an
 * sa_path_rec of the RoCE type with the route already resolved, so that the
 * CM builds its address vector from it without an SA query.
 */
#include <linux/completion.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "ibcm.h"

/* RDMA/CM's packet lifetime for RoCE paths (4.096 us * 2^16, about 268 ms). */
#define IBCM_ROCE_PACKET_LIFETIME 16

struct ibcm_resolve {
	struct completion done;
	int status;
	struct sockaddr_storage src;
};

static void ibcm_resolved(int status, struct sockaddr *src,
			  struct rdma_dev_addr *addr, void *context)
{
	struct ibcm_resolve *r = context;

	r->status = status;
	if (!status)
		memcpy(&r->src, src, rdma_addr_size(src));
	complete(&r->done);
}

int ibcm_path_resolve(struct ib_device *dev, u32 port,
		      const struct sockaddr *dst, enum ib_gid_type gid_type,
		      unsigned long timeout_ms, struct ibcm_path *out,
		      const char **what)
{
	struct rdma_dev_addr addr = { .net = &init_net };
	const struct ib_gid_attr *attr;
	struct ibcm_resolve r = {};
	struct sa_path_rec *rec = &out->rec;
	struct net_device *ndev;
	union ib_gid sgid, dgid;
	int ret;

	init_completion(&r.done);
	/*
	 * No source address: the routing table picks it, as for an unbound
	 * rdma_cm_id. rdma_resolve_ip() calls back exactly once, also on its
	 * own time-out, so waiting for the completion cannot hang.
	 */
	ret = rdma_resolve_ip(NULL, dst, &addr, timeout_ms, ibcm_resolved,
			      false, &r);
	if (ret) {
		*what = "address resolution could not start";
		return ret;
	}
	wait_for_completion(&r.done);
	if (r.status) {
		*what = "address resolution";
		return r.status;
	}

	ndev = dev_get_by_index(&init_net, addr.bound_dev_if);
	if (!ndev) {
		*what = "no egress netdev";
		return -ENODEV;
	}
	rdma_ip2gid((struct sockaddr *)&r.src, &sgid);
	rdma_ip2gid((struct sockaddr *)dst, &dgid);
	attr = rdma_find_gid_by_port(dev, &sgid, gid_type, port, ndev);
	if (IS_ERR(attr)) {
		*what = "no source GID of that type on the port";
		ret = PTR_ERR(attr);
		goto out_ndev;
	}

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = sa_conv_gid_to_pathrec_type(gid_type);
	rec->sgid = sgid;
	rec->dgid = dgid;
	rec->hop_limit = addr.hoplimit;
	rec->reversible = 1;
	rec->pkey = cpu_to_be16(0xffff);
	/* Traffic class 0 on a netdev without VLAN: service level 0. */
	rec->sl = 0;
	rec->traffic_class = 0;
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = iboe_get_mtu(ndev->mtu);
	rec->rate_selector = IB_SA_EQ;
	rec->rate = IB_RATE_PORT_CURRENT;
	rec->packet_life_time_selector = IB_SA_EQ;
	rec->packet_life_time = IBCM_ROCE_PACKET_LIFETIME;
	/* Route and neighbour are resolved: the CM uses this MAC as is. */
	rec->roce.route_resolved = true;
	sa_path_set_dmac(rec, addr.dst_dev_addr);
	if (!rec->mtu) {
		*what = "netdev MTU too small for RoCE";
		ret = -EINVAL;
		rdma_put_gid_attr(attr);
		goto out_ndev;
	}
	out->sgid_attr = attr;
	ret = 0;
out_ndev:
	dev_put(ndev);
	return ret;
}
