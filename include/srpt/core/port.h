// SPDX-License-Identifier: GPL-2.0
// Port: one port of an RDMA device, as the target sees it.
//
// Lifetime: created when the device is added; the Device holds one reference
// and each configfs target port naming it holds another. Device removal
// detaches the port (it no longer reaches the hardware and refuses to be
// enabled) but the object lives on until the last target port directory is
// removed: configfs, not the RDMA core, decides when those go away.
//
// GID 0 and the two names derived from it are read again after a port
// event that may change them (Target::refresh_port): a GID change renames
// the port for configfs lookups, while target ports made under the old
// names stay bound to it.
//
// Locking: everything mutable is guarded by the Target's lock, except the
// pending events, which are atomic. The port's
// login lock (login_lock()) serialises the logins on this port with what
// changes what they use: TPG disable and drop of its target ports, its
// use_srq switch, device removal (target.h has the lock order).
#pragma once

#include <srpt/abi/device.h>
#include <srpt/abi/dm.h>
#include <srpt/core/port_name.h>
#include <srpt/rt/list.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/refptr.h>
#include <srpt/rt/string.h>

namespace srpt {

class TargetPort;

// <tpg>/attrib/ values. Per port, as in-tree: every TPG of a port shows them.
struct PortAttributes {
  static constexpr u32 kDefaultMaxRdmaSize = 65536;
  static constexpr u32 kMinMaxRdmaSize = 65536;
  static constexpr u32 kMaxMaxRdmaSize = 1u << 24;
  static constexpr u32 kDefaultMaxRspSize = 256;
  static constexpr u32 kMinMaxRspSize = 40;  // SRP_RSP header + 4
  static constexpr u32 kMaxMaxRspSize = 1024;
  static constexpr u32 kDefaultSqSize = 4096;
  static constexpr u32 kMinSqSize = 4;
  static constexpr u32 kMaxSqSize = 65535;

  u32 max_rdma_size = kDefaultMaxRdmaSize;
  u32 max_rsp_size = kDefaultMaxRspSize;
  u32 sq_size = kDefaultSqSize;
  bool use_srq = false;
};

class Port : public RefCounted<Port> {
 public:
  static Result<RefPtr<Port>> create(StringView device_name,
                                     const srpt_port_desc& desc);
  ~Port();

  u32 port_num() const { return port_num_; }
  const Gid& gid0() const { return gid0_; }
  srpt_link_layer link_layer() const { return link_layer_; }
  bool iwarp() const { return iwarp_; }
  const char* device_name() const { return device_name_.c_str(); }
  // Its device was renamed (Device::rename, which checked that it fits).
  void set_device_name(StringView name) { (void)device_name_.assign(name); }
  const PortName& guid_name() const { return guid_name_; }
  const PortName& gid_name() const { return gid_name_; }

  // Held by a login on this port from its lookup to its answer, and by
  // whatever changes what such a login uses while that waits for the
  // port's channels. Never two ports' at once; before the Target's lock.
  Mutex& login_lock() { return login_lock_; }

  // A port event (srpt_core_port_event), noted for the device's event
  // work from the RDMA core's event context: no lock.
  void note_event(srpt_port_event ev) {
    __atomic_fetch_or(&pending_events_, 1u << ev, __ATOMIC_RELEASE);
  }
  // The events noted since the last call, as a mask of 1 << event.
  u32 take_events() { return __atomic_exchange_n(&pending_events_, 0u, __ATOMIC_ACQUIRE); }

  // Written under the Target lock, and only ever from true to false;
  // atomic, so that a channel's release may look without the lock whether
  // its port is going away (Channel::await_port_for_disconnect).
  bool attached() const { return __atomic_load_n(&attached_, __ATOMIC_ACQUIRE); }
  // Target lock held for all of these.
  // Whether the port was ACTIVE when last looked at (at add, and at each
  // port event since).
  bool up() const { return up_; }
  void set_up(bool up) { up_ = up; }
  // A new GID 0, and the names derived from it.
  void set_gid0(const Gid& gid);
  // GID 0 could not be read at the last port event (names kept).
  bool gid0_missing() const { return gid0_missing_; }
  // The port has had a GID 0, and so names: false for a port whose GID 0
  // could not be read when its device was added, until a port event finds
  // one. A port without names is listed (port events reach it) but not
  // served: configfs cannot name it and it has no DM agent.
  bool named() const { return named_; }
  void set_gid0_missing(bool missing) { gid0_missing_ = missing; }
  void detach() { __atomic_store_n(&attached_, false, __ATOMIC_RELEASE); }
  TargetPort* tport(PortNameForm form) const { return tports_[static_cast<int>(form)]; }
  void set_tport(PortNameForm form, TargetPort* t) { tports_[static_cast<int>(form)] = t; }
  PortAttributes& attributes() { return attrs_; }

  // The port's Device Management agent, or nullptr (iWARP, or the port
  // refused it). Made when the device is added, under the Target's lock
  // (registering waits for no handler; one that runs at once waits for
  // the lock in dm_answer, and the device is listed when it gets it);
  // destroyed when it is removed, outside that lock (destroying waits for
  // the handlers, which take it: dm.h).
  srpt_k_dm_agent* dm_agent = nullptr;

  // On the owning Device's list.
  ListNode device_node;

 private:
  friend class RefPtr<Port>;
  explicit Port(Mutex login_lock) : login_lock_(move(login_lock)) {}

  Mutex login_lock_;

  u32 port_num_ = 0;
  Gid gid0_{};
  srpt_link_layer link_layer_ = SRPT_LINK_UNSPECIFIED;
  bool iwarp_ = false;
  FixedString<64> device_name_;
  PortName guid_name_;
  PortName gid_name_;
  bool attached_ = true;  // atomic
  bool up_ = true;
  bool gid0_missing_ = false;
  bool named_ = false;
  u32 pending_events_ = 0;  // 1 << srpt_port_event; atomic
  TargetPort* tports_[kPortNameFormCount] = {};
  PortAttributes attrs_;
};

}  // namespace srpt
