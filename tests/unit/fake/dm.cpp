// SPDX-License-Identifier: GPL-2.0
#include "dm.h"

#include <set>

#include "fault.h"
#include "lock.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

struct srpt_k_dm_agent {
  srpt_k_device* kdev;
  uint32_t port_num;
  srpt_core_device* dev;
};

namespace fake {
namespace {

struct DmState {
  std::vector<srpt_k_dm_agent*> live;
};

DmState& state() {
  static DmState* s = new DmState;  // never destroyed: outlives exit-time checks
  return *s;
}

}  // namespace

std::vector<std::pair<srpt_k_device*, uint32_t>> dm_agents() {
  std::vector<std::pair<srpt_k_device*, uint32_t>> out;
  for (srpt_k_dm_agent* a : state().live) out.emplace_back(a->kdev, a->port_num);
  return out;
}

bool dm_query(srpt_k_device* kdev, uint32_t port_num, const srpt::dm::Mad& req,
              srpt::dm::Mad* rsp) {
  for (srpt_k_dm_agent* a : state().live) {
    if (a->kdev != kdev || a->port_num != port_num) continue;
    OtherThread mad_thread;  // the MAD layer's receive work
    srpt_core_dm_answer(a->dev, a->port_num, &req, rsp);
    return true;
  }
  record_violation("dm_query: no DM agent on port %u", port_num);
  return false;
}

std::vector<std::string> dm_leaks() {
  std::vector<std::string> out;
  for (srpt_k_dm_agent* a : state().live)
    out.push_back("DM agent of port " + std::to_string(a->port_num) + " was never destroyed");
  return out;
}

void reset_dm() {
  for (srpt_k_dm_agent* a : state().live) delete a;
  state().live.clear();
}

}  // namespace fake

extern "C" int srpt_k_dm_agent_create(srpt_k_device* kdev, uint32_t port_num,
                                      srpt_core_device* dev, srpt_k_dm_agent** out) noexcept {
  fake::might_sleep("srpt_k_dm_agent_create");
  fake::trace("srpt_k_dm_agent_create", kdev, port_num);
  if (int err = fake::injected_call_error(fake::Call::DmAgentCreate)) return err;
  auto* a = new srpt_k_dm_agent{kdev, port_num, dev};
  fake::state().live.push_back(a);
  *out = a;
  return 0;
}

extern "C" void srpt_k_dm_agent_destroy(srpt_k_dm_agent* agent) noexcept {
  if (agent == nullptr) return;
  fake::might_sleep("srpt_k_dm_agent_destroy");
  fake::trace("srpt_k_dm_agent_destroy", agent->kdev, agent->port_num);
  if (fake::holds_mutex_of_class(SRPT_LOCK_TARGET) || fake::holds_mutex_of_class(SRPT_LOCK_LOGIN))
    fake::record_violation("srpt_k_dm_agent_destroy with the target or a login lock held: "
                           "it waits for MAD handlers that take the target lock");
  auto& live = fake::state().live;
  for (auto it = live.begin(); it != live.end(); ++it) {
    if (*it != agent) continue;
    live.erase(it);
    delete agent;
    return;
  }
  fake::record_violation("srpt_k_dm_agent_destroy(%p): not a live agent",
                         static_cast<void*>(agent));
}
