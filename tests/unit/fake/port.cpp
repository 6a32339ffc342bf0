// SPDX-License-Identifier: GPL-2.0
#include "port.h"

#include <srpt/abi/device.h>

#include "completion.h"
#include "lock.h"
#include "trace.h"

namespace fake {
namespace {

struct PortState {
  uint64_t down_until_ns = 0;
  int queries = 0;
};

PortState& state() {
  static PortState* s = new PortState;  // never destroyed: outlives exit-time checks
  return *s;
}

}  // namespace

void set_ports_down_until(uint64_t ns) { state().down_until_ns = ns; }
int port_queries() { return state().queries; }
void reset_port() { state() = PortState{}; }

}  // namespace fake

extern "C" int srpt_k_port_active(srpt_k_device* kdev, uint32_t port_num) noexcept {
  fake::might_sleep("srpt_k_port_active");  // ib_query_port() may sleep
  fake::trace("srpt_k_port_active", kdev, port_num);
  fake::state().queries++;
  return fake::now_ns() >= fake::state().down_until_ns ? 1 : 0;
}
