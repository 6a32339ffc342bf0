// SPDX-License-Identifier: GPL-2.0
// Tpg: a target portal group, /sys/kernel/config/target/srpt/<port>/<tpg>.
//
// Logins are accepted only through an enabled TPG of the port they arrive on.
// Lifetime: configfs mkdir..rmdir, always inside its TargetPort's lifetime.
// Locking: `enabled` and list membership are guarded by the Target's lock.
#pragma once

#include <srpt/abi/fabric.h>
#include <srpt/rt/list.h>
#include <srpt/rt/string.h>
#include <srpt/rt/types.h>

namespace srpt {

class TargetPort;

class Tpg : Pinned {
 public:
  Tpg(TargetPort& tport, srpt_k_tpg* ktpg) : tport_(tport), ktpg_(ktpg) {}

  TargetPort& tport() const { return tport_; }
  // The shim's se_portal_group, for sessions.
  srpt_k_tpg* ktpg() const { return ktpg_; }
  bool enabled() const { return enabled_; }
  // The in-tree driver reports tag 1 for every TPG; initiators never see it.
  static constexpr u16 kTag = 1;

  ListNode tport_node;

 private:
  friend class Target;
  TargetPort& tport_;
  srpt_k_tpg* const ktpg_;
  bool enabled_ = false;
};

}  // namespace srpt
