// SPDX-License-Identifier: GPL-2.0
#include "port.h"

#include <array>
#include <cstring>
#include <map>
#include <utility>

#include <srpt/abi/device.h>

#include "completion.h"
#include "fault.h"
#include "lock.h"
#include "trace.h"

namespace fake {
namespace {

struct PortState {
  uint64_t down_until_ns = 0;
  uint64_t link_down_until_ns = 0;
  int queries = 0;
  std::map<std::pair<srpt_k_device*, uint32_t>, std::array<uint8_t, 16>> gid0;
};

PortState& state() {
  static PortState* s = new PortState;  // never destroyed: outlives exit-time checks
  return *s;
}

}  // namespace

void set_ports_down_until(uint64_t ns) { state().down_until_ns = ns; }
void set_links_down_until(uint64_t ns) { state().link_down_until_ns = ns; }
int port_queries() { return state().queries; }
void set_port_gid0(srpt_k_device* kdev, uint32_t port_num, const uint8_t* gid) {
  std::array<uint8_t, 16>& g = state().gid0[{kdev, port_num}];
  memcpy(g.data(), gid, g.size());
}
void reset_port() { state() = PortState{}; }

}  // namespace fake

extern "C" int srpt_k_port_active(srpt_k_device* kdev, uint32_t port_num) noexcept {
  fake::might_sleep("srpt_k_port_active");  // ib_query_port() may sleep
  fake::trace("srpt_k_port_active", kdev, port_num);
  fake::state().queries++;
  return fake::now_ns() >= fake::state().down_until_ns ? 1 : 0;
}

extern "C" int srpt_k_port_link_up(srpt_k_device* kdev, uint32_t port_num) noexcept {
  fake::might_sleep("srpt_k_port_link_up");  // ib_query_port() may sleep
  fake::trace("srpt_k_port_link_up", kdev, port_num);
  fake::state().queries++;
  const uint64_t now = fake::now_ns();
  return now >= fake::state().down_until_ns && now >= fake::state().link_down_until_ns ? 1 : 0;
}

extern "C" int srpt_k_port_gid0(srpt_k_device* kdev, uint32_t port_num,
                                uint8_t gid0[16]) noexcept {
  fake::might_sleep("srpt_k_port_gid0");
  fake::trace("srpt_k_port_gid0", kdev, port_num);
  if (const int err = fake::injected_call_error(fake::Call::PortGid0)) return err;
  const auto it = fake::state().gid0.find({kdev, port_num});
  if (it == fake::state().gid0.end()) return -SRPT_EINVAL;  // rdma_query_gid() on an empty entry
  memcpy(gid0, it->second.data(), it->second.size());
  return 0;
}
