// SPDX-License-Identifier: GPL-2.0
// Target: the one SRP target this module is. It owns the registry of RDMA
// devices, ports and channels, the listeners, and decides every configfs
// operation on the srpt fabric and every login.
//
// Locks, in the order they are taken (the order of every lock class of the
// module is include/srpt/abi/lock.h's; what each lock serialises is here):
//   rdma_cm_lock_ (mutex) one write of discovery_auth/rdma_cm_port at a
//                time, from its check of the port in use to the old
//                listener's destruction (see its declaration below). Before
//                every other lock: destroying a listener waits for its
//                logins, which take those.
//   Port::login_lock() (mutex, one per RDMA port) serialises the logins on
//                that port with whatever changes what they use: disabling
//                and dropping a TPG of the port (a login's TPG stays valid
//                while it runs), the port's use_srq switch (no login on it
//                sees the switch half done), device removal (logins in
//                flight end before the device's channels close and the
//                device goes). Held across a whole login, target-core
//                session setup included, and by those operations while they
//                wait for the port's channels; so a login or a wait on one
//                port holds up nothing on another port or device
//                (LoginLockTest). Never two at once: device-wide
//                operations take the ports' locks one after the other.
//                Never held while destroying a listener: that waits for
//                running REQ callbacks, which wait for these locks.
//   Device::srq_lock() (mutex, one per RDMA device) held by a use_srq
//                switch while it makes the device's SRQ, so that switches
//                on two ports of the device make one (device.h).
//   lock_        (mutex) the registry: device list, port attachment and
//                target ports, TPG lists and enabled flags, channel list,
//                devices' SRQ pointers, listener state. Never held while
//                calling into the target core or the CM, nor while waiting
//                for a channel.
//   Channel::lock_ (spinlock) inside one channel. The channel's dispatch
//                gate has a spinlock of the same class, never nested with it
//                (channel.h).
//   IdleCache::lock_ (spinlock) inside one of a device's two idle caches,
//                of receive rings and of command-context sets (idle_cache.h).
//                Innermost: nothing is taken under it, and never both at
//                once.
// Waiting for a channel's release happens with lock_ dropped: the release
// work takes lock_ to unlink the channel.
#pragma once

#include <srpt/core/dm_agent.h>

#include <srpt/abi/cm.h>
#include <srpt/abi/device.h>
#include <srpt/abi/fabric.h>
#include <srpt/core/channel.h>
#include <srpt/core/cm_id.h>
#include <srpt/core/log_limit.h>
#include <srpt/core/login.h>
#include <srpt/core/device.h>
#include <srpt/core/object_counts.h>
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
  // ib_client rename: the device and its ports take the new name (the old
  // one stays when it does not fit). Process context; takes the lock.
  void rename_device(Device& dev, StringView name);
  // The DM agent of (dev, port_num) received *req: *rsp answers it
  // (dm_agent.h). Process context; takes the Target's lock.
  void dm_answer(Device& dev, u32 port_num, const dm::Mad& req, dm::Mad* rsp);

  // srpt_core_port_event: notes the event on the port and queues the
  // device's event work, which refreshes the port (refresh_port). From the
  // RDMA core's event context: takes no lock, calls nothing of the device.
  void port_event(Device& dev, u32 port_num, srpt_port_event ev);

  // configfs: target port directories.
  Result<TargetPort*> make_tport(StringView name);
  void drop_tport(TargetPort* tport);

  // configfs: TPG directories, "enable" and attrib/.
  Result<Tpg*> make_tpg(TargetPort& tport, StringView name, srpt_k_tpg* ktpg);
  Status enable_tpg(Tpg& tpg, bool enable);
  void drop_tpg(Tpg* tpg);
  u32 tpg_attribute(Tpg& tpg, srpt_tpg_attr attr);
  Status set_tpg_attribute(Tpg& tpg, srpt_tpg_attr attr, StringView text);

  // configfs: discovery_auth/rdma_cm_port. Moves the RDMA/CM listener.
  // One write at a time (rdma_cm_lock_).
  Status set_rdma_cm_port(StringView text) SRPT_EXCLUDES(rdma_cm_lock_, lock_);
  u16 rdma_cm_port();

  // The login handler (see cm_id.h for the ownership rule).
  LoginVerdict login(const srpt_login_event& ev);

  // The release work of a channel, once the channel is done with its
  // queues; the work goes on using the Target after it (see shutdown()).
  void unregister_channel(Channel& ch);
  // debugfs ib_srpt/channels.
  void show_channels(srpt_k_seq* seq);
  // acls/<name>/info of `tpg` (acl_info.cpp).
  void show_acl_info(Tpg& tpg, StringView acl_name, srpt_k_seq* seq);
  // debugfs ib_srpt/objects (the core's lines), and the counts behind them.
  void show_objects(srpt_k_seq* seq);
  ObjectCounters& counters() { return counters_; }
  // Gate of every log line a remote initiator can trigger at will.
  LogLimiter& log_limit() { return log_limit_; }

  // Module unload, before the devices go: the RDMA/CM listener goes, and
  // no rdma_cm_port write makes another (srpt_core_stop_rdma_cm).
  void stop_rdma_cm() SRPT_EXCLUDES(rdma_cm_lock_, lock_);
  // Module unload: the listener goes, every channel is released, and every
  // release work has returned; the Target may be freed after it.
  void shutdown();

  u64 service_guid();
  const Params& params() const { return params_; }

 private:
  Target(Mutex lock, Mutex rdma_cm_lock, const Params& params)
      : lock_(move(lock)), rdma_cm_lock_(move(rdma_cm_lock)), params_(params) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  // The device's event work: each port with events noted is refreshed, and
  // a failed SRQ replaced.
  static void port_events_work_fn(void* arg);
  // SharedRecvQueue::FailureHook of a device's SRQ: queues the event work.
  static void srq_failed_fn(void* dev);
  // Makes the SRQ for `dev` (srq_lock held, outside lock_).
  Result<RefPtr<SharedRecvQueue>> make_srq(Device& dev);
  // The device's SRQ failed: a new one is installed (or, if that cannot be
  // made, its ports go on without SRQ), then the channels on the failed
  // one are closed, port by port under its login lock.
  void replace_failed_srq(Device& dev) SRPT_EXCLUDES(lock_);
  // After `events` (mask of 1 << srpt_port_event): logs an ACTIVE/down
  // change; on any event but PORT_ERR reads GID 0 again (a new one renames
  // the port) and makes the DM agent the port lacks. One log line per
  // change.
  void refresh_port(Device& dev, Port& port, u32 events) SRPT_EXCLUDES(lock_);
  Port* find_attached_port(const ParsedPortName& name) SRPT_REQUIRES(lock_);
  Device* find_device(srpt_k_device* kdev) SRPT_REQUIRES(lock_);
  Device* device_of(const Port& port) SRPT_REQUIRES(lock_);
  // use_srq of a port: creates or drops the device's SRQ and logs out the
  // port's channels (they log in again on the new receive queue).
  Status set_use_srq(Tpg& tpg, bool on) SRPT_EXCLUDES(lock_);
  // Closes every channel `match` selects and waits for each to be released.
  template <class Match>
  void close_channels_and_wait(Match match, CloseReason why) SRPT_EXCLUDES(lock_);
  // Live channels other than `ch` under its session name in its TPG; for a
  // SINGLE login (!multi) not those of its own nexus, which it replaces.
  usize session_channels(const Channel& ch, bool multi) SRPT_REQUIRES(lock_);
  // Calls fn(tpg, name) -> bool for each enabled TPG of the port and each
  // session name it is tried under, in the order of initiator_name.h, until
  // fn returns true. Returns whether an enabled TPG was found (true when fn
  // returned true).
  template <class Fn>
  bool for_each_session_name(Port& port, const SessionNames& names, Fn fn)
      SRPT_EXCLUDES(lock_);
  // The k-th enabled TPG (from 0) of the port's target port named in `form`.
  Tpg* enabled_tpg(Port& port, PortNameForm form, usize k) SRPT_REQUIRES(lock_);

  // The steps of login(), in order (login.h has the table). Only the three
  // that end a login take the lease: the refusals give it back, answer()
  // lets the registered channel adopt it. The steps between see it const.
  LoginVerdict refuse_unparsed(CmIdLease&& lease, const srpt_login_event& ev);
  LoginVerdict refuse_unknown_port(CmIdLease&& lease, const LoginAttempt& at);
  LoginVerdict reject(CmIdLease&& lease, const LoginAttempt& at, const Rejection& r);
  RefPtr<Port> login_port(const srpt_login_event& ev) SRPT_EXCLUDES(lock_);
  // The rest run with the port's login lock held.
  Result<LoginPortView> view_port(const LoginAttempt& at, Port& port)
      SRPT_REQUIRES(port.login_lock()) SRPT_EXCLUDES(lock_);
  LoginStep<CommittedLogin> prepare(const LoginAttempt& at, Port& port,
                                    const LoginPortView& view,
                                    const CmIdLease& lease)
      SRPT_REQUIRES(port.login_lock()) SRPT_EXCLUDES(lock_);
  LoginStep<void> check_port(const LoginPortView& view, const LoginGrant& grant);
  LoginStep<void> admit(const LoginAttempt& at, Port& port)
      SRPT_REQUIRES(port.login_lock()) SRPT_EXCLUDES(lock_);
  LoginStep<PendingChannel> build_channel(const LoginAttempt& at, Port& port,
                                          const LoginPortView& view,
                                          const LoginGrant& grant,
                                          const CmIdLease& lease)
      SRPT_REQUIRES(port.login_lock()) SRPT_EXCLUDES(lock_);
  LoginStep<void> attach_session(const LoginAttempt& at, Port& port,
                                 PendingChannel& ch)
      SRPT_REQUIRES(port.login_lock()) SRPT_EXCLUDES(lock_);
  LoginStep<void> post_receives(PendingChannel& ch);
  LoginStep<CommittedLogin> commit(PendingChannel& ch, const LoginGrant& grant)
      SRPT_EXCLUDES(lock_);
  LoginVerdict answer(CmIdLease&& lease, const LoginAttempt& at, CommittedLogin&& c)
      SRPT_EXCLUDES(lock_);

  Mutex lock_;
  // Held by a write of the RDMA/CM port from its check of the port in use
  // to the old listener's destruction, so that two writes cannot both make
  // a listener on the same port (the second would fail EADDRINUSE:
  // RdmaCmPortTest.TwoWritesOfTheSamePortAtOnceBothSucceed). Before lock_
  // and every port's login lock: destroying a listener waits for its
  // logins, which take those.
  Mutex rdma_cm_lock_;
  // Set by stop_rdma_cm(): no listener may be made any more.
  bool rdma_cm_stopped_ SRPT_GUARDED_BY(rdma_cm_lock_) = false;
  List<Device, &Device::target_node> devices_ SRPT_GUARDED_BY(lock_);
  List<Channel, &Channel::target_node> channels_ SRPT_GUARDED_BY(lock_);
  u64 logins_ SRPT_GUARDED_BY(lock_) = 0;  // channels ever registered
  Params params_;  // service_guid is written once, under lock_
  u16 rdma_cm_port_ SRPT_GUARDED_BY(lock_) = 0;
  srpt_k_listener* rdma_listener_ SRPT_GUARDED_BY(lock_) = nullptr;
  ObjectCounters counters_;
  LogLimiter log_limit_;
};

}  // namespace srpt
