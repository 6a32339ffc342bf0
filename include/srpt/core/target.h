// SPDX-License-Identifier: GPL-2.0
// Target: the one SRP target this module is. It owns the registry of RDMA
// devices and ports, and decides every configfs operation on the srpt fabric.
//
// Locking: one mutex (lock class SRPT_LOCK_TARGET) guards the registry: the
// device list, each port's attachment and target ports, each target port's
// TPG list and each TPG's enabled flag. Every entry point takes it, so the
// RDMA core's add/remove callbacks and configfs operations are serialised.
// Nothing under it sleeps for long: no CM or QP operation runs under it.
#pragma once

#include <srpt/abi/device.h>
#include <srpt/core/device.h>
#include <srpt/core/params.h>
#include <srpt/core/target_port.h>
#include <srpt/core/tpg.h>
#include <srpt/rt/list.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/own.h>
#include <srpt/rt/string.h>
#include <srpt/rt/thread_annotations.h>

namespace srpt {

class Target : Pinned {
 public:
  static Result<Own<Target>> create(const Params& params);
  ~Target();

  // ib_client add/remove.
  Result<Device*> add_device(srpt_k_device* kdev, const srpt_device_desc& desc);
  void remove_device(Device* dev);

  // configfs: target port directories.
  Result<TargetPort*> make_tport(StringView name);
  void drop_tport(TargetPort* tport);

  // configfs: TPG directories and their "enable" attribute.
  Result<Tpg*> make_tpg(TargetPort& tport, StringView name);
  Status enable_tpg(Tpg& tpg, bool enable);
  void drop_tpg(Tpg* tpg);

  // configfs: discovery_auth/rdma_cm_port.
  Status set_rdma_cm_port(StringView text);
  u16 rdma_cm_port();

  u64 service_guid();
  const Params& params() const { return params_; }

 private:
  Target(Mutex lock, const Params& params) : lock_(move(lock)), params_(params) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  Port* find_attached_port(const ParsedPortName& name) SRPT_REQUIRES(lock_);

  Mutex lock_;
  List<Device, &Device::target_node> devices_ SRPT_GUARDED_BY(lock_);
  Params params_;  // service_guid is written once, under lock_
  u16 rdma_cm_port_ SRPT_GUARDED_BY(lock_) = 0;
};

}  // namespace srpt
