// SPDX-License-Identifier: GPL-2.0
// Device Management MADs on the wire (InfiniBand Architecture, chapter 16.3;
// the SRP-specific values from SRP r16a annex B.7). A DM MAD is 256 bytes: the
// common MAD header, an RMPP header and a DM header (both unused here, zero),
// then 192 bytes of attribute data. Multi-byte fields are big-endian.
//
// As srp_wire.h: byte arrays of alignment 1, sizes checked against the wire.
#pragma once

#include <srpt/rt/byteorder.h>
#include <srpt/rt/types.h>

namespace srpt::dm {

inline constexpr u8 kMgmtClass = 0x06;    // Device Management
inline constexpr u8 kClassVersion = 1;
inline constexpr u8 kBaseVersion = 1;

enum Method : u8 {
  kMethodGet = 0x01,
  kMethodSet = 0x02,
  kMethodGetResp = 0x81,
};

// MAD status field (IBA 13.4.7, table 115; 16.3.1.1).
enum Status : u16 {
  kStatusOk = 0x0000,
  kStatusUnsupMethod = 0x0008,
  kStatusUnsupMethodAttr = 0x000c,
  kStatusInvalidField = 0x001c,
  kStatusNoIoc = 0x0100,  // class specific: no I/O controller in that slot
};

// Attributes (IBA 16.3.3, table 279).
enum Attr : u16 {
  kAttrClassPortInfo = 0x0001,
  kAttrIouInfo = 0x0010,
  kAttrIocProfile = 0x0011,
  kAttrSvcEntries = 0x0012,
};

struct MadHeader {  // 24 bytes, IBA 13.4.2
  u8 base_version;
  u8 mgmt_class;
  u8 class_version;
  u8 method;
  Be16 status;
  Be16 class_specific;
  Be64 tid;
  Be16 attr_id;
  u8 reserved[2];
  Be32 attr_mod;
};
static_assert(sizeof(MadHeader) == 24);

inline constexpr usize kMadSize = 256;
inline constexpr usize kDataOffset = 64;  // IB_MGMT_DEVICE_HDR
inline constexpr usize kDataSize = kMadSize - kDataOffset;

struct Mad {  // 256 bytes
  MadHeader hdr;
  u8 rmpp_and_dm_hdr[kDataOffset - sizeof(MadHeader)];
  u8 data[kDataSize];
};
static_assert(sizeof(Mad) == kMadSize);

struct ClassPortInfo {  // 72 bytes, IBA 13.4.8.1
  u8 base_version;
  u8 class_version;
  Be16 capability_mask;
  Be32 cap_mask2_resp_time;  // low 5 bits: response time value
  u8 redirect_gid[16];
  Be32 redirect_tc_sl_fl;
  Be16 redirect_lid;
  Be16 redirect_pkey;
  Be32 redirect_qp;
  Be32 redirect_qkey;
  u8 trap_gid[16];
  Be32 trap_tc_sl_fl;
  Be16 trap_lid;
  Be16 trap_pkey;
  Be32 trap_hl_qp;
  Be32 trap_qkey;
};
static_assert(sizeof(ClassPortInfo) == 72);

struct IouInfo {  // 132 bytes, IBA 16.3.3.3
  Be16 change_id;
  u8 max_controllers;
  u8 op_rom;
  u8 controller_list[128];  // 4 bits per slot, slot 1 in the high nibble of byte 0
};
static_assert(sizeof(IouInfo) == 132);

// controller_list values.
inline constexpr u8 kSlotEmpty = 0x0;
inline constexpr u8 kSlotPresent = 0x1;

struct IocProfile {  // 128 bytes, IBA 16.3.3.4
  Be64 guid;
  Be32 vendor_id;
  Be32 device_id;
  Be16 device_version;
  u8 reserved1[2];
  Be32 subsys_vendor_id;
  Be32 subsys_device_id;
  Be16 io_class;
  Be16 io_subclass;
  Be16 protocol;
  Be16 protocol_version;
  Be16 service_conn;
  Be16 initiators_supported;
  Be16 send_queue_depth;
  u8 reserved2;
  u8 rdma_read_depth;
  Be32 send_size;
  Be32 rdma_size;
  u8 op_cap_mask;
  u8 svc_cap_mask;
  u8 num_svc_entries;
  u8 reserved3[9];
  char id_string[64];
};
static_assert(sizeof(IocProfile) == 128);

// SRP's IOControllerProfile values (SRP r16a, table B.7).
inline constexpr u16 kIoClassSrpRev16a = 0x0100;
inline constexpr u16 kIoSubclassSrp = 0x609e;
inline constexpr u16 kProtocolSrp = 0x0108;
inline constexpr u16 kProtocolVersionSrp = 0x0001;
// op_cap_mask bits.
inline constexpr u8 kOpSendToIoc = 0x01;
inline constexpr u8 kOpSendFromIoc = 0x02;
inline constexpr u8 kOpRdmaReadFromIoc = 0x08;
inline constexpr u8 kOpRdmaWriteFromIoc = 0x20;

struct SvcEntry {  // 48 bytes, IBA 16.3.3.5
  char name[40];
  Be64 id;
};
static_assert(sizeof(SvcEntry) == 48);

struct SvcEntries {  // 192 bytes: up to four entries per MAD
  SvcEntry entries[4];
};
static_assert(sizeof(SvcEntries) == 192);

}  // namespace srpt::dm
