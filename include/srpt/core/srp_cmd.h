// SPDX-License-Identifier: GPL-2.0
// SRP_CMD parsing and SRP_RSP building: pure functions over IU bytes, so that
// every bound check is unit-tested on the host.
#pragma once

#include <srpt/abi/cmd.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/types.h>

namespace srpt {

// Remote segments one command may use: a direct descriptor is one; an
// indirect table (in the IU, or external and fetched by RDMA read) at most
// this many. ib_srp sends at most 255 in the IU (cmd_sg_entries) and, with
// memory registration, rarely more than a handful per command. Matches the
// shim's limit (SRPT_K_MAX_RDMA_SEGS).
inline constexpr u32 kMaxRdmaSegs = SRPT_K_MAX_RDMA_SEGS;
// Largest descriptor table, in bytes, fetched from initiator memory. Also
// below the smallest srp_max_rdma_size (64 KiB), the TPG's bound on one
// RDMA transfer.
inline constexpr u32 kMaxTableBytes = kMaxRdmaSegs * 16;
static_assert(kMaxTableBytes <= 65536);

// The largest data length a command may announce, 16 MiB. The descriptors'
// length is the expected length the target core is given, and for a CDB
// that moves less (or no) data it may still allocate all of it (data-out);
// a larger command is refused before the target core or a table fetch sees
// it (SrpCmdTest.ADataLengthAboveSixteenMiBIsRefused).
// In-tree refuses no command for its length: srp_max_rdma_size (64 KiB by
// default, below ib_srp's 512 KiB commands) is only advertised, in the DM
// IOC profile, capped at this same 16 MiB. Twice the 8 MiB commands the
// send queue is sized for (send_queue.h).
inline constexpr u32 kMaxCmdDataLen = 16u << 20;

struct ChannelIuLimits {
  u32 max_it_iu_len;    // granted at login
  bool immediate;       // IMMED_SUPP granted
  u16 imm_data_offset;  // where immediate data starts in the IU
};

// An indirect descriptor table in initiator memory (table_desc of the
// indirect header) that the IU does not carry in full.
struct ExternalTable {
  u64 va;
  u32 rkey;
  u32 len;  // bytes, a multiple of 16, at most kMaxTableBytes; 0: none
};

struct ParsedCmd {
  srp::Tag tag;
  u64 lun;  // scsilun_to_int() of the 8-byte LUN
  const u8* cdb;
  u32 cdb_len;
  srpt_task_attr attr;
  srpt_data_dir dir;
  u32 data_len;  // from the descriptors
  // The caller's storage for kMaxRdmaSegs segments (parse_srp_cmd's
  // `store`); nsegs of them are valid.
  srpt_rdma_seg* segs;
  u32 nsegs;
  // Set when the table must be fetched: the segments then come from
  // decode_desc_table() on the fetched bytes (nsegs is 0 until then).
  ExternalTable ext;
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
  EmptyTable,            // indirect descriptor whose table has no entry
  TableLength,           // table length not a multiple of a descriptor (16)
  TableCount,            // IU claims more descriptors than its table has
  TooManySegments,       // more than kMaxRdmaSegs
  LengthMismatch,        // indirect total length above the sum of the segments
  DataTooLong,           // data length above kMaxCmdDataLen
  TableFetchFailed,      // the RDMA read of an external table failed
  // Not a refusal: the IU's own table has more entries than the caller's
  // store holds (`store_cap`); nothing was refused yet. Parse again with a
  // store of kMaxRdmaSegs.
  StoreTooSmall,
};

const char* cmd_refusal_name(CmdRefusal r);

// `iu`/`len`: the received bytes (len = what the wire carried). `store`
// holds `store_cap` (at least 1) segments; out->segs points to it. An IU whose table has
// more entries than that gets StoreTooSmall, and a larger store may be
// offered; at kMaxRdmaSegs every table fits. An external table is only
// described (out->ext, whatever the store); the caller fetches it into a
// buffer of kMaxTableBytes and calls decode_desc_table().
CmdRefusal parse_srp_cmd(const u8* iu, u32 len, const ChannelIuLimits& lim,
                         srpt_rdma_seg* store, ParsedCmd* out,
                         u32 store_cap = kMaxRdmaSegs);

// Decodes a fetched external table of out->ext.len bytes into out->segs and
// checks the data length against it. `table` may be the very memory of
// out->segs (a wire descriptor and a segment are both 16 bytes, decoded in
// place entry by entry).
CmdRefusal decode_desc_table(const u8* table, ParsedCmd* out);

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

// How many of the `reported` sense bytes of a command's result are its own.
// Fixed (0x70, 0x71) and descriptor (0x72, 0x73) format sense data state
// their length, 8 + ADDITIONAL SENSE LENGTH (byte 7; SPC-4 4.5); the target
// core reports the size of its whole buffer for the CHECK CONDITIONs it
// builds itself (translate_sense_reason(): TRANSPORT_SENSE_BUFFER), and the
// slot's buffer outlives its commands, so bytes past that length are not
// this command's
// (ChannelTest.ResponseCarriesNoSenseOfAnEarlierCommandOfTheSlot). Any other
// response code: `reported` as is (the shim zeroes the buffer for each
// command, include/srpt/abi/cmd.h). 0 when there is no sense.
u32 built_sense_len(const u8* sense, u32 reported);

// Writes an SRP_RSP into buf (capacity `cap`, at least 36 + 4). Sense data
// is truncated to what fits. Returns the IU length.
u32 build_srp_rsp(u8* buf, u32 cap, const RspFields& f);

// Fixed-format sense data for a refusal, 18 bytes. A malformed IU (its
// descriptors, counts, lengths, formats are fields of the command IU, not
// of the CDB): ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT
// (0x0e/0x03, SPC-4), which the initiator does not retry. A failed table
// fetch: ABORTED COMMAND (0x0b, no additional code), which it may retry.
inline constexpr u32 kRefusalSenseLen = 18;
void refusal_sense(CmdRefusal why, u8 (&sense)[kRefusalSenseLen]);

inline constexpr u8 kScsiStatusGood = 0x00;
inline constexpr u8 kScsiStatusCheckCondition = 0x02;
inline constexpr u8 kScsiStatusBusy = 0x08;

// SRP_TSK_MGMT response codes (SRP r16a table 24).
inline constexpr u8 kTmrComplete = 0x00;
inline constexpr u8 kTmrNotSupported = 0x04;
inline constexpr u8 kTmrFailed = 0x05;

}  // namespace srpt
