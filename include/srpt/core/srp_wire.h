// SPDX-License-Identifier: GPL-2.0
// SRP information units on the wire (SRP r16a / SRP-2, as Linux's
// include/scsi/srp.h lays them out). Multi-byte fields are big-endian except
// the 8-byte tags, which are opaque and echoed back byte for byte.
//
// The structs are byte arrays with alignment 1: they overlay any buffer, and
// their sizes are checked below against the wire sizes.
#pragma once

#include <srpt/rt/byteorder.h>
#include <srpt/rt/types.h>

namespace srpt::srp {

enum Opcode : u8 {
  kLoginReq = 0x00,
  kTskMgmt = 0x01,
  kCmd = 0x02,
  kILogout = 0x03,
  kLoginRsp = 0xc0,
  kRsp = 0xc1,
  kLoginRej = 0xc2,
  kTLogout = 0x80,
  kCredReq = 0x81,
  kAerReq = 0x82,
  kCredRsp = 0x41,
  kAerRsp = 0x42,
};

// SRP_LOGIN_REJ reasons.
enum RejectReason : u32 {
  kRejUnableToEstablish = 0x00010000,
  kRejInsufficientResources = 0x00010001,
  kRejIuTooLarge = 0x00010002,
  kRejUnableToAssociate = 0x00010003,
  kRejUnsupportedDescriptorFmt = 0x00010004,
  kRejMultiChannelUnsupported = 0x00010005,
  kRejChannelLimitReached = 0x00010006,
};

// req_buf_fmt / buf_fmt bits.
inline constexpr u16 kBufFmtDirect = 1u << 1;
inline constexpr u16 kBufFmtIndirect = 1u << 2;

// req_flags.
inline constexpr u8 kMultiChanMask = 0x03;
inline constexpr u8 kMultiChanSingle = 0;
inline constexpr u8 kMultiChanMulti = 1;
inline constexpr u8 kImmedRequested = 0x80;

// rsp_flags.
inline constexpr u8 kRspNoChan = 0x0;
inline constexpr u8 kRspTerminated = 0x1;
inline constexpr u8 kRspMaintained = 0x2;
inline constexpr u8 kRspImmedSupported = 0x80;

// Data descriptor formats, per nibble of SRP_CMD buf_fmt (out: high).
enum DescFmt : u8 { kNoData = 0, kDirect = 1, kIndirect = 2, kImmediate = 3 };

// SRP_RSP flags.
inline constexpr u8 kRspFlagRspValid = 1u << 0;
inline constexpr u8 kRspFlagSnsValid = 1u << 1;
inline constexpr u8 kRspFlagDoOver = 1u << 2;
inline constexpr u8 kRspFlagDoUnder = 1u << 3;
inline constexpr u8 kRspFlagDiOver = 1u << 4;
inline constexpr u8 kRspFlagDiUnder = 1u << 5;

struct Tag {
  u8 bytes[8];
};

struct LoginReq {  // 64 bytes, IB/CM private data
  u8 opcode;
  u8 reserved1[7];
  Tag tag;
  Be32 req_it_iu_len;
  u8 reserved2[4];
  Be16 req_buf_fmt;
  u8 req_flags;
  u8 reserved3;
  Be16 imm_data_offset;
  u8 reserved4[2];
  u8 initiator_port_id[16];
  u8 target_port_id[16];
};
static_assert(sizeof(LoginReq) == 64);

struct LoginReqRdma {  // 56 bytes, RDMA/CM private data
  Tag tag;
  Be16 req_buf_fmt;
  u8 req_flags;
  u8 opcode;
  Be32 req_it_iu_len;
  u8 initiator_port_id[16];
  u8 target_port_id[16];
  Be16 imm_data_offset;
  u8 reserved[6];
};
static_assert(sizeof(LoginReqRdma) == 56);

struct LoginRsp {  // 52 bytes
  u8 opcode;
  u8 reserved1[3];
  Be32 req_lim_delta;
  Tag tag;
  Be32 max_it_iu_len;
  Be32 max_ti_iu_len;
  Be16 buf_fmt;
  u8 rsp_flags;
  u8 reserved2[25];
};
static_assert(sizeof(LoginRsp) == 52);

struct LoginRej {  // 32 bytes
  u8 opcode;
  u8 reserved1[3];
  Be32 reason;
  Tag tag;
  u8 reserved2[8];
  Be16 buf_fmt;
  u8 reserved3[6];
};
static_assert(sizeof(LoginRej) == 32);

struct DirectBuf {  // 16 bytes
  Be64 va;
  Be32 key;
  Be32 len;
};
static_assert(sizeof(DirectBuf) == 16);

struct IndirectBufHeader {  // 20 bytes, followed by DirectBuf desc_list[]
  DirectBuf table_desc;
  Be32 len;
};
static_assert(sizeof(IndirectBufHeader) == 20);

struct Cmd {  // 48 bytes, followed by additional CDB bytes and descriptors
  u8 opcode;
  u8 sol_not;
  u8 reserved1[3];
  u8 buf_fmt;
  u8 data_out_desc_cnt;
  u8 data_in_desc_cnt;
  Tag tag;
  u8 reserved2[4];
  u8 lun[8];
  u8 reserved3;
  u8 task_attr;
  u8 reserved4;
  u8 add_cdb_len;
  u8 cdb[16];
};
static_assert(sizeof(Cmd) == 48);

struct TskMgmt {  // 48 bytes
  u8 opcode;
  u8 sol_not;
  u8 reserved1[6];
  Tag tag;
  u8 reserved2[4];
  u8 lun[8];
  u8 reserved3[2];
  u8 tsk_mgmt_func;
  u8 reserved4;
  Tag task_tag;
  u8 reserved5[8];
};
static_assert(sizeof(TskMgmt) == 48);

struct Rsp {  // 36 bytes, followed by response data and sense data
  u8 opcode;
  u8 sol_not;
  u8 reserved1[2];
  Be32 req_lim_delta;
  Tag tag;
  u8 reserved2[2];
  u8 flags;
  u8 status;
  Be32 data_out_res_cnt;
  Be32 data_in_res_cnt;
  Be32 sense_data_len;
  Be32 resp_data_len;
};
static_assert(sizeof(Rsp) == 36);

// Smallest IU an initiator may announce (SRP: at least 64 bytes).
inline constexpr u32 kMinItIuLen = 64;

}  // namespace srpt::srp
