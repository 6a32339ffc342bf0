// SPDX-License-Identifier: GPL-2.0
// The fake DM agents (include/srpt/abi/dm.h): which ports have one, and a
// MAD delivered to one as the MAD layer's receive handler would.
//
// srpt_k_dm_agent_destroy() waits for the agent's handlers, which take the
// Target's lock: called with that lock (or a port's login lock) held, it is
// a violation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <srpt/abi/dm.h>
#include <srpt/core/dm_wire.h>

namespace fake {

// (kdev, port number) of every live agent, in creation order.
std::vector<std::pair<srpt_k_device*, uint32_t>> dm_agents();
// The answer of the agent on (kdev, port_num) to `req`, from the MAD
// layer's thread; false (and a test failure) when there is no such agent.
bool dm_query(srpt_k_device* kdev, uint32_t port_num, const srpt::dm::Mad& req,
              srpt::dm::Mad* rsp);

std::vector<std::string> dm_leaks();
void reset_dm();

}  // namespace fake
