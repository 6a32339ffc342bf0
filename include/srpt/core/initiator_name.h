// SPDX-License-Identifier: GPL-2.0
// Initiator names: what an ACL directory may be called, and which names a
// login is looked up under.
//
// As in-tree, a login is tried, in order, under:
//   1. the short name: for IB/CM the initiator port GUID, i.e. the interface
//      id (low 8 bytes) of the initiator's port GID from the REQ's path, as
//      xxxx:xxxx:xxxx:xxxx (never taken from the initiator port id in the
//      login bytes, which the initiator chooses freely); for RDMA/CM the
//      initiator's IP address as text. Tried in TPGs of GUID-named ports.
//   2. "0x" + the 32 hex digits of the 16-byte initiator port id, then
//   3. the same without "0x". Both tried in TPGs of GID-named ports (which is
//      what targetcli-fb makes: its ACL "ib.<32 hex>" becomes "0x<32 hex>").
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/rt/string.h>
#include <srpt/rt/types.h>

namespace srpt {

// Fits an IPv6 address with scope, and "0x" + 32 hex digits.
using InitiatorName = FixedString<64>;

struct SessionNames {
  InitiatorName short_name;   // GUID form or IP address
  InitiatorName port_id_0x;   // "0x" + 32 hex
  InitiatorName port_id_hex;  // 32 hex
};

SessionNames session_names(srpt_cm_kind kind, const u8 (&i_port_id)[16],
                           const u8 (&initiator_gid)[16], StringView src_addr);

// ACL names accepted by mkdir acls/<name>: the GUID form, 32 hex digits with
// or without 0x, an IPv4 address or an IPv6 address.
bool is_valid_acl_name(StringView name);

}  // namespace srpt
