// SPDX-License-Identifier: GPL-2.0
// The handles a Channel and a Command cross the C ABI as: struct
// srpt_core_chan (abi/cm.h) and struct srpt_core_cmd (abi/cmd.h), opaque
// and distinct, so that handing the shim one where it keeps the other, or
// the shim giving one back where the other is expected, does not compile
// (tests/unit/abi/handles_check.sh). Both directions are converted only in
// abi_entry.cpp (the SRQ's in srq.cpp), which states why a handle given
// back is what it names.
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/abi/cmd.h>
#include <srpt/abi/device.h>
#include <srpt/abi/queue.h>

namespace srpt {

class Channel;
class Command;
class Device;
class SharedRecvQueue;

// The handle of a device the shim stores for the DM agents of its ports
// (srpt_k_dm_agent_create) and gives back in srpt_core_dm_answer().
srpt_core_device* to_abi(Device& dev);

// The handle the shim stores as the context of the channel's cm_id, QP
// and session (and gives back in their callbacks).
srpt_core_chan* to_abi(Channel& ch);
// The handle the shim stores in the command's slot (srpt_k_cmd_create).
srpt_core_cmd* to_abi(Command& cmd);
// The objects behind handles the shim gives back (and the host tests read
// from the fake's cm_ids and QPs).
Channel& from_abi(srpt_core_chan* ch);
Command& from_abi(srpt_core_cmd* cmd);

// The handle the shim stores as the context of a kernel SRQ
// (srpt_k_srq_create) and gives back with its events (defined in srq.cpp).
srpt_core_srq* to_abi(SharedRecvQueue& q);
SharedRecvQueue& from_abi(srpt_core_srq* q);

}  // namespace srpt
