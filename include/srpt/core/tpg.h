// SPDX-License-Identifier: GPL-2.0
// Tpg: a target portal group, /sys/kernel/config/target/srpt/<port>/<tpg>.
//
// Logins are accepted only through an enabled TPG of the port they arrive on.
// Lifetime: configfs mkdir..rmdir, always inside its TargetPort's lifetime.
// Locking: `enabled` and list membership are guarded by the Target's lock.
#pragma once

#include <srpt/rt/list.h>
#include <srpt/rt/string.h>
#include <srpt/rt/types.h>

namespace srpt {

class TargetPort;

class Tpg : Pinned {
 public:
  explicit Tpg(TargetPort& tport) : tport_(tport) {}

  TargetPort& tport() const { return tport_; }
  bool enabled() const { return enabled_; }
  // The in-tree driver reports tag 1 for every TPG; initiators never see it.
  static constexpr u16 kTag = 1;

  ListNode tport_node;

 private:
  friend class Target;
  TargetPort& tport_;
  bool enabled_ = false;
};

}  // namespace srpt
