// SPDX-License-Identifier: GPL-2.0
// SRP_TSK_MGMT: which task management function a request asks for, and the
// SRP response code for the target core's answer. Pure functions over IU
// bytes, unit-tested on the host.
#pragma once

#include <srpt/abi/cmd.h>
#include <srpt/core/srp_cmd.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/types.h>

namespace srpt {

// tsk_mgmt_func values (SRP r16a, table 22).
inline constexpr u8 kSrpTskAbortTask = 0x01;
inline constexpr u8 kSrpTskAbortTaskSet = 0x02;
inline constexpr u8 kSrpTskClearTaskSet = 0x04;
inline constexpr u8 kSrpTskLunReset = 0x08;
inline constexpr u8 kSrpTskClearAca = 0x40;

struct ParsedTskMgmt {
  srp::Tag tag;       // the request's own tag, echoed in its SRP_RSP
  u64 lun;            // scsi_lun_to_int() of the 8-byte LUN
  u8 srp_func;        // tsk_mgmt_func as received
  srpt_tmf func;      // valid when parse_srp_tsk_mgmt() said Ok
  srp::Tag task_tag;  // ABORT TASK: the command to abort
};

enum class TskMgmtRefusal : u8 {
  None = 0,
  Truncated,        // IU shorter than an SRP_TSK_MGMT (48 bytes)
  UnknownFunction,  // a tsk_mgmt_func value SRP does not define
};

const char* tsk_mgmt_refusal_name(TskMgmtRefusal r);
const char* tsk_mgmt_func_name(u8 srp_func);

// `iu`/`len`: the received bytes. Fills what it could read (the tag as soon
// as the IU holds it) even when it refuses.
TskMgmtRefusal parse_srp_tsk_mgmt(const u8* iu, u32 len, ParsedTskMgmt* out);

// SRP_RSP response codes for task management (SRP r16a, table 24): besides
// kTmrComplete, kTmrNotSupported and kTmrFailed (srp_cmd.h), the one for a
// request whose fields are invalid.
inline constexpr u8 kTmrFieldsInvalid = 0x02;

// The response code for a refusal (the target core never saw the request).
u8 tsk_mgmt_refusal_code(TskMgmtRefusal r);
// The response code for the target core's answer. ABORT TASK of a command
// the target core does not hold (never received, or already completed: its
// SRP_RSP is then on its way) is FUNCTION COMPLETE, as SAM-4 defines ABORT
// TASK ("aborted or not in the task set"); a LUN that the session does not
// map, and a function the target core tried and could not carry out, are
// FAILED; a function it does not implement is NOT SUPPORTED.
u8 tsk_mgmt_rsp_code(srpt_tmf_result r);

}  // namespace srpt
