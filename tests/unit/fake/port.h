// SPDX-License-Identifier: GPL-2.0
// The fake port state (include/srpt/abi/device.h: srpt_k_port_active,
// srpt_k_port_link_up, srpt_k_port_gid0). Every port of every device is
// ACTIVE and its link up unless a test takes them down: down until a point of
// the fake clock (completion.h), which srpt_k_sleep_ms() advances. A link can
// be down while its port is still ACTIVE (a RoCE port just after its network
// device stopped). A port's GID 0 is what the test last set for
// it (the harness sets each port's when it adds a device); a port never set
// has none (-EINVAL, as rdma_query_gid() answers for an empty entry).
#pragma once

#include <cstdint>

#include <srpt/abi/device.h>

namespace fake {

// The ports are not ACTIVE while now_ns() < ns (~0: for good).
void set_ports_down_until(uint64_t ns);
// The links of the ports are down while now_ns() < ns; the ports stay ACTIVE.
void set_links_down_until(uint64_t ns);
// srpt_k_port_active() and srpt_k_port_link_up() calls so far.
int port_queries();
// What srpt_k_port_gid0() reads for (kdev, port_num) from now on.
// `gid`: 16 bytes, network byte order.
void set_port_gid0(srpt_k_device* kdev, uint32_t port_num, const uint8_t* gid);

void reset_port();

}  // namespace fake
