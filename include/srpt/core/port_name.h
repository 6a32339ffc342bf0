// SPDX-License-Identifier: GPL-2.0
// The names of an RDMA port under /sys/kernel/config/target/srpt/.
//
// As in Linux's in-tree ib_srpt, a port has two names, both derived from its
// GID at index 0 (for InfiniBand the subnet prefix and port GUID; for RoCE
// the link-local GID):
//   GUID form: the interface id as four groups of four hex digits,
//              "fe80:0000:..."-style, e.g. "949e:a5ff:fe80:2188";
//   GID form:  "0x" followed by the 32 hex digits of the whole GID, which is
//              what targetcli-fb creates (it turns "ib.<32 hex>" into it).
// We format both exactly as the in-tree driver does (lowercase, zero-padded)
// and parse them more leniently: either case, and the GID form with or without
// its "0x".
#pragma once

#include <srpt/rt/status.h>
#include <srpt/rt/string.h>
#include <srpt/rt/types.h>

namespace srpt {

struct Gid {
  u8 raw[16];

  u64 subnet_prefix() const;
  u64 interface_id() const;
  bool operator==(const Gid& o) const;
  bool operator!=(const Gid& o) const { return !(*this == o); }
};

enum class PortNameForm : u8 { Guid = 0, Gid = 1 };
inline constexpr int kPortNameFormCount = 2;

// Fits "0x" + 32 hex digits and the terminator.
using PortName = FixedString<40>;

PortName format_guid_name(u64 interface_id);
PortName format_gid_name(const Gid& gid);

struct ParsedPortName {
  PortNameForm form;
  // Guid form: only interface_id is meaningful. Gid form: gid.
  u64 interface_id;
  Gid gid;

  // Does this name designate the port whose GID 0 is `gid0`?
  bool names(const Gid& gid0) const;
};

// Error::Inval for anything that is neither form.
Result<ParsedPortName> parse_port_name(StringView name);

}  // namespace srpt
