// SPDX-License-Identifier: GPL-2.0
// Port: one port of an RDMA device, as the target sees it.
//
// Lifetime: created when the device is added; the Device holds one reference
// and each configfs target port naming it holds another. Device removal
// detaches the port (it no longer reaches the hardware and refuses to be
// enabled) but the object lives on until the last target port directory is
// removed: configfs, not the RDMA core, decides when those go away.
//
// Locking: everything mutable is guarded by the Target's lock.
#pragma once

#include <srpt/abi/device.h>
#include <srpt/core/port_name.h>
#include <srpt/rt/list.h>
#include <srpt/rt/refptr.h>
#include <srpt/rt/string.h>

namespace srpt {

class TargetPort;

class Port : public RefCounted<Port> {
 public:
  static Result<RefPtr<Port>> create(StringView device_name,
                                     const srpt_port_desc& desc);
  ~Port();

  u32 port_num() const { return port_num_; }
  const Gid& gid0() const { return gid0_; }
  srpt_link_layer link_layer() const { return link_layer_; }
  const char* device_name() const { return device_name_.c_str(); }
  const PortName& guid_name() const { return guid_name_; }
  const PortName& gid_name() const { return gid_name_; }

  // Target lock held for all of these.
  bool attached() const { return attached_; }
  void detach() { attached_ = false; }
  TargetPort* tport(PortNameForm form) const { return tports_[static_cast<int>(form)]; }
  void set_tport(PortNameForm form, TargetPort* t) { tports_[static_cast<int>(form)] = t; }

  // On the owning Device's list.
  ListNode device_node;

 private:
  friend class RefPtr<Port>;
  Port() = default;

  u32 port_num_ = 0;
  Gid gid0_{};
  srpt_link_layer link_layer_ = SRPT_LINK_UNSPECIFIED;
  FixedString<64> device_name_;
  PortName guid_name_;
  PortName gid_name_;
  bool attached_ = true;
  TargetPort* tports_[kPortNameFormCount] = {};
};

}  // namespace srpt
