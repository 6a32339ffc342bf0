// SPDX-License-Identifier: GPL-2.0
// The fake port state (include/srpt/abi/device.h: srpt_k_port_active). Every
// port of every device is ACTIVE unless a test takes them down: down until a
// point of the fake clock (completion.h), which srpt_k_sleep_ms() advances.
#pragma once

#include <cstdint>

namespace fake {

// The ports are not ACTIVE while now_ns() < ns (~0: for good).
void set_ports_down_until(uint64_t ns);
// srpt_k_port_active() calls so far.
int port_queries();

void reset_port();

}  // namespace fake
