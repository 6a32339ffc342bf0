// SPDX-License-Identifier: GPL-2.0
// SRP_CMD parsing and SRP_RSP building: pure functions over IU bytes, so that
// every bound check is unit-tested on the host.
#pragma once

#include <srpt/abi/cmd.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/types.h>

namespace srpt {

// Remote segments one command may use (direct: 1; indirect: the table
// carried in the IU). Matches the shim's RDMA context array.
inline constexpr u32 kMaxRdmaSegs = 16;

struct ChannelIuLimits {
  u32 max_it_iu_len;    // granted at login
  bool immediate;       // IMMED_SUPP granted
  u16 imm_data_offset;  // where immediate data starts in the IU
};

struct ParsedCmd {
  srp::Tag tag;
  u64 lun;  // scsilun_to_int() of the 8-byte LUN
  const u8* cdb;
  u32 cdb_len;
  srpt_task_attr attr;
  srpt_data_dir dir;
  u32 data_len;  // from the descriptors
  srpt_rdma_seg segs[kMaxRdmaSegs];
  u32 nsegs;
  const u8* imm;  // immediate data inside the IU, or nullptr
  u32 imm_len;
};

// Why a command is refused before reaching the target core; each maps to a
// CHECK CONDITION with ILLEGAL REQUEST sense.
enum class CmdRefusal : u8 {
  None = 0,
  Truncated,             // IU shorter than its header, CDB or descriptors
  Bidirectional,         // both data-in and data-out descriptors
  BadFormat,             // reserved descriptor format, or immediate data for reads
  ImmediateNotGranted,   // immediate data on a channel that did not negotiate it
  ImmediateOutOfBounds,  // immediate data past the IU
  ImmediateOverlap,      // immediate data starting inside its descriptor or the CDB
  ExternalTable,         // indirect table not fully inside the IU (data-path issue)
  TooManySegments,       // more than kMaxRdmaSegs
  LengthMismatch,        // indirect total length below the sum of the segments
};

const char* cmd_refusal_name(CmdRefusal r);

// `iu`/`len`: the received bytes (len = what the wire carried).
CmdRefusal parse_srp_cmd(const u8* iu, u32 len, const ChannelIuLimits& lim,
                         ParsedCmd* out);

// 8-byte SCSI LUN to the integer the target core uses (as scsilun_to_int).
u64 scsi_lun_to_int(const u8 (&lun)[8]);

struct RspFields {
  srp::Tag tag;
  u32 req_lim_delta;
  u8 status;
  srpt_data_dir dir;
  bool underflow;
  bool overflow;
  u32 residual;
  const u8* sense;
  u32 sense_len;
  // SRP_TSK_MGMT responses: response data with this code (RSPVALID).
  bool has_rsp_code;
  u8 rsp_code;
};

// Writes an SRP_RSP into buf (capacity `cap`, at least 36 + 4). Sense data
// is truncated to what fits. Returns the IU length.
u32 build_srp_rsp(u8* buf, u32 cap, const RspFields& f);

// Fixed-format sense data for a refusal: ILLEGAL REQUEST, INVALID FIELD IN
// CDB. 18 bytes.
inline constexpr u32 kRefusalSenseLen = 18;
void refusal_sense(u8 (&sense)[kRefusalSenseLen]);

inline constexpr u8 kScsiStatusGood = 0x00;
inline constexpr u8 kScsiStatusCheckCondition = 0x02;
inline constexpr u8 kScsiStatusBusy = 0x08;

// SRP_TSK_MGMT response codes (SRP r16a table 24).
inline constexpr u8 kTmrComplete = 0x00;
inline constexpr u8 kTmrNotSupported = 0x04;
inline constexpr u8 kTmrFailed = 0x05;

}  // namespace srpt
