// SPDX-License-Identifier: GPL-2.0
// Device: an RDMA device the ib_client was told about, with its ports.
//
// Lifetime: exactly the ib_client's add..remove window. The Device owns one
// reference to each of its Ports; removal detaches them first, so objects that
// outlive the device (configfs target ports) see a detached port, never a
// dangling device.
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/abi/device.h>
#include <srpt/abi/session.h>
#include <srpt/core/cmd_context_cache.h>
#include <srpt/core/port.h>
#include <srpt/core/recv_ring_cache.h>
#include <srpt/core/srq.h>
#include <srpt/rt/list.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/own.h>
#include <srpt/rt/string.h>

namespace srpt {

class Target;

class Device : Pinned {
 public:
  // Builds the device and all its ports, or nothing.
  static Result<Own<Device>> create(srpt_k_device* kdev,
                                    const srpt_device_desc& desc);
  ~Device();

  srpt_k_device* kdev() const { return kdev_; }
  // Read without the Target's lock by log lines: a rename racing one may
  // show it torn, never unterminated (FixedString keeps its last byte 0).
  const char* name() const { return name_.c_str(); }
  // The Target's lock held. False (the old name kept) when it does not fit.
  bool rename(StringView name);
  u64 node_guid() const { return node_guid_; }
  // Its attributes, as srpt_device_desc gave them.
  u32 vendor_id() const { return vendor_id_; }
  u32 vendor_part_id() const { return vendor_part_id_; }
  u32 hw_ver() const { return hw_ver_; }
  u32 max_qp_wr() const { return max_qp_wr_; }
  u32 max_cqe() const { return max_cqe_; }
  List<Port, &Port::device_node>& ports() { return ports_; }
  Port* port(u32 port_num);

  // The work that handles the ports' events (Target::port_event): queued
  // from the RDMA core's event context, run on the module's work queue.
  // Made before the device is listed; device removal flushes it before it
  // goes, after the shim stopped delivering events.
  srpt_k_work* event_work = nullptr;
  Target* target = nullptr;  // whose work it is
  // The device's SRQ failed (SharedRecvQueue::FailureHook): noted from the
  // driver's event context, taken by the event work.
  void note_srq_failed() { __atomic_store_n(&srq_failed_, true, __ATOMIC_RELEASE); }
  bool take_srq_failed() { return __atomic_exchange_n(&srq_failed_, false, __ATOMIC_ACQ_REL); }

  // The IB/CM listener on the service GUID, or nullptr when it could not
  // be made (the device is then served through RDMA/CM only).
  srpt_k_listener* ib_listener = nullptr;

  // The shared receive queue, while a port of the device has use_srq set
  // (see srq.h). Read and written under the Target's lock: a login reads it
  // only for a port with use_srq set, and a use_srq write, holding that
  // port's login lock, makes it when it is missing and drops it only when
  // no port of the device has use_srq set any more; so it is stable for
  // every login that uses it. Device removal drops it with the device.
  RefPtr<SharedRecvQueue> srq;
  // Held by a use_srq switch from finding the device without an SRQ to
  // installing the one it made: switches on two ports of the device at
  // once make one SRQ, the second finds the first's
  // (SrqSwitchTest.BothPortsSwitchOnAtOnce). Taken with one port's login
  // lock held, before the Target's lock (target.h); only for making:
  // dropping decides under the Target's lock alone.
  Mutex& srq_lock() { return srq_lock_; }

  // Receive rings of its released channels, for its next logins. Made with
  // the device (Target::add_device); removal drains it after the device's
  // channels are released, before the device (and its PD) goes.
  Own<RecvRingCache> recv_rings;
  // The same for the command contexts of its released channels.
  Own<CmdContextCache> cmd_contexts;

  // Target lock held: detaches every port from the hardware.
  void detach_ports();

  // On the Target's device list.
  ListNode target_node;

 private:
  explicit Device(Mutex srq_lock) : srq_lock_(move(srq_lock)) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  Mutex srq_lock_;
  srpt_k_device* kdev_ = nullptr;
  FixedString<64> name_;
  u64 node_guid_ = 0;
  u32 vendor_id_ = 0;
  u32 vendor_part_id_ = 0;
  u32 hw_ver_ = 0;
  u32 max_qp_wr_ = 0;
  u32 max_cqe_ = 0;
  bool srq_failed_ = false;  // atomic
  // Each listed port carries one reference owned by this device.
  List<Port, &Port::device_node> ports_;
};

}  // namespace srpt
