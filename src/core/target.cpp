// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/target.h>

#include <srpt/abi/log.h>
#include <srpt/abi/session.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/kstrto.h>
#include <srpt/core/login_policy.h>
#include <srpt/rt/assert.h>

namespace srpt {
namespace {

const char* form_name(PortNameForm form) {
  return form == PortNameForm::Guid ? "GUID" : "GID";
}

}  // namespace

Result<Own<Target>> Target::create(const Params& params) {
  Mutex lock = SRPT_TRY(Mutex::create(SRPT_LOCK_TARGET));
  Mutex rdma_cm_lock = SRPT_TRY(Mutex::create(SRPT_LOCK_RDMA_CM));
  return make_own<Target>(alloc_sleep, move(lock), move(rdma_cm_lock), params);
}

Target::~Target() {
  // module_exit runs after ib_unregister_client() removed every device, and
  // the module cannot be unloaded while configfs holds a target port, so no
  // TPG, and no channel, is left.
  SRPT_ASSERT(devices_.empty());
  SRPT_ASSERT(channels_.empty());
  SRPT_ASSERT(rdma_listener_ == nullptr);
  // Every Channel uses its Target until its destructor's last line, which
  // may run in its release work after it left channels_: shutdown() waited
  // for those works.
  SRPT_ASSERT(counters_.snapshot().channels_live == 0);
}

void Target::shutdown() {
  // The shim's exit stopped it already; its init-failure path did not.
  stop_rdma_cm();
  // Module unload removed every device before this (ib_client first:
  // ~Target asserts it), and the last listener is gone: no login runs or
  // can start, so no port's login lock is needed to close what is left.
  close_channels_and_wait([](Channel&) { return true; }, CloseReason::Shutdown);
  // A channel released before this point may still be in its release work,
  // past unregister_channel() (so not waited for above), and uses the
  // Target until its destructor returns: the caller frees the Target next
  // (ChannelTest.ModuleExitWaitsForAReleaseWorkStillRunning).
  // Nothing queues work any more: listeners and channels are gone.
  srpt_k_work_flush();
}

Device* Target::find_device(srpt_k_device* kdev) {
  for (Device& d : devices_)
    if (d.kdev() == kdev) return &d;
  return nullptr;
}

template <class Match>
void Target::close_channels_and_wait(Match match, CloseReason why) {
  // One at a time: the registry lock cannot be held while waiting, and a
  // released channel has left the list, so this ends.
  for (;;) {
    RefPtr<Channel> victim;
    {
      MutexGuard guard(lock_);
      for (Channel& ch : channels_) {
        if (match(ch)) {
          victim = RefPtr<Channel>(&ch);
          break;
        }
      }
    }
    if (!victim) return;
    victim->close_and_wait(why);
  }
}

void Target::unregister_channel(Channel& ch) {
  MutexGuard guard(lock_);
  channels_.remove(ch);
  // Only unlinks: the caller, the channel's release work, drops the
  // registry's reference.
}

Result<Device*> Target::add_device(srpt_k_device* kdev,
                                   const srpt_device_desc& desc) {
  Own<Device> dev = SRPT_TRY(Device::create(kdev, desc));
  dev->target = this;
  dev->recv_rings = SRPT_TRY(RecvRingCache::create(kdev, params_.recv_ring_cache));
  dev->cmd_contexts = SRPT_TRY(CmdContextCache::create(params_.recv_ring_cache));
  int ret = srpt_k_work_create(&Target::port_events_work_fn, dev.get(), &dev->event_work);
  if (ret) {
    dev->event_work = nullptr;
    return Error::from_kernel(ret);
  }
  for (Port& p : dev->ports()) p.set_up(srpt_k_port_active(kdev, p.port_num()) != 0);
  MutexGuard guard(lock_);
  if (params_.service_guid == 0) {
    params_.service_guid = desc.node_guid;
    srpt_log(SRPT_LOG_INFO, "service GUID 0x%016llx (node GUID of %s)\n",
             static_cast<unsigned long long>(desc.node_guid), dev->name());
  }
  for (Port& p : dev->ports()) {
    if (!p.named()) continue;
    srpt_log(SRPT_LOG_INFO, "%s port %u: target port names %s and %s\n",
             dev->name(), p.port_num(), p.guid_name().c_str(),
             p.gid_name().c_str());
  }
  // IB/CM on every port, RoCE included (the in-tree driver serves IB/CM
  // only on InfiniBand link layers).
  ret = srpt_k_ib_listen(kdev, params_.service_guid, &dev->ib_listener);
  if (ret) {
    dev->ib_listener = nullptr;
    srpt_log(SRPT_LOG_WARNING,
             "%s: no IB/CM listener (error %d); logins through RDMA/CM only\n",
             dev->name(), ret);
  }
  // A Device Management agent on every port that is not iWARP (RoCE
  // included, as in-tree), so that srp_daemon and ibsrpdm find the target.
  // A port that refuses it (SR-IOV virtual functions do) is still served.
  Device* raw = move(dev).release();
  for (Port& p : raw->ports()) {
    // A port without names gets its agent with them (refresh_port).
    if (p.iwarp() || !p.named()) continue;
    ret = srpt_k_dm_agent_create(kdev, p.port_num(), to_abi(*raw), &p.dm_agent);
    if (ret) {
      p.dm_agent = nullptr;
      srpt_log(SRPT_LOG_WARNING,
               "%s port %u: no device management agent (error %d); "
               "srp_daemon will not find this port\n",
               raw->name(), p.port_num(), ret);
    }
  }
  devices_.push_back(*raw);
  return raw;
}

void Target::port_event(Device& dev, u32 port_num, srpt_port_event ev) {
  Port* p = dev.port(port_num);  // the device's port list is fixed
  if (p == nullptr || ev >= SRPT_PORT_EVENT_COUNT) return;  // a port not served
  p->note_event(ev);
  srpt_k_work_queue(dev.event_work);
}

void Target::port_events_work_fn(void* arg) {
  // SAFETY: the device outlives its event work: removal cancels the work
  // and destroys it before it destroys the device (remove_device, steps 2
  // and 4).
  Device& dev = *static_cast<Device*>(arg);
  for (Port& p : dev.ports()) {
    const u32 events = p.take_events();
    if (events != 0) dev.target->refresh_port(dev, p, events);
  }
  if (dev.take_srq_failed()) dev.target->replace_failed_srq(dev);
}

void Target::srq_failed_fn(void* arg) {
  // SAFETY: the device outlives its SRQ and its event work: removal drops
  // the SRQ (no event after its destroy) before it cancels and destroys
  // the work (remove_device, step 4).
  Device& dev = *static_cast<Device*>(arg);
  dev.note_srq_failed();
  srpt_k_work_queue(dev.event_work);
}

Result<RefPtr<SharedRecvQueue>> Target::make_srq(Device& dev) {
  return SharedRecvQueue::create(dev.kdev(), dev.name(), params_.srq_size, params_.max_req_size,
                                 kSrqImmDataOffset, {&Target::srq_failed_fn, &dev});
}

void Target::replace_failed_srq(Device& dev) {
  RefPtr<SharedRecvQueue> failed;
  {
    MutexGuard making(dev.srq_lock());
    const SharedRecvQueue* seen;
    {
      MutexGuard guard(lock_);
      if (find_device(dev.kdev()) != &dev) return;  // being removed
      if (!dev.srq || !dev.srq->failed()) return;
      seen = dev.srq.get();
    }
    Result<RefPtr<SharedRecvQueue>> made = make_srq(dev);
    MutexGuard guard(lock_);
    // srq_lock keeps any other SRQ from being made meanwhile, but the last
    // port's use_srq=0 drops the device's SRQ under lock_ alone
    // (set_use_srq): then the failed SRQ went with that port's channels, no
    // port wants one, and a new one is not installed. (Installed, it held
    // its buffers for no port, and the sweep below, looking for channels on
    // "no SRQ", closed every channel with a receive ring of its own.) `made`
    // is dropped after lock_.
    if (dev.srq.get() != seen) {
      srpt_log(SRPT_LOG_INFO,
               "%s: the failed shared receive queue was dropped meanwhile (use_srq=0); "
               "none replaces it\n",
               dev.name());
      return;
    }
    failed = move(dev.srq);
    if (made.ok()) {
      dev.srq = move(made).value();
      srpt_log(SRPT_LOG_NOTICE, "%s: a new shared receive queue of %u buffers replaces the failed one\n",
               dev.name(), dev.srq->count());
    } else {
      // The ports never have use_srq set without an SRQ (device.h): they
      // go on with a receive ring per channel, and say so.
      for (Port& p : dev.ports()) {
        if (!p.attributes().use_srq) continue;
        p.attributes().use_srq = false;
        srpt_log(SRPT_LOG_ERR,
                 "%s port %u: no new shared receive queue (error %d); use_srq=0 "
                 "from now on\n",
                 dev.name(), p.port_num(), made.error().to_kernel());
      }
    }
  }
  // Logins from now on use the new SRQ. One in flight on a port may still
  // attach to the failed one: its port's login lock waits for it, and the
  // sweep of that port then finds its channel.
  const SharedRecvQueue* old = failed.get();
  for (Port& p : dev.ports()) {
    MutexGuard login(p.login_lock());
    close_channels_and_wait([old](Channel& ch) { return ch.srq_identity() == old; },
                            CloseReason::SrqFailed);
  }
  failed.reset();  // the last reference: every channel on it is released
  srpt_log(SRPT_LOG_INFO, "%s: failed shared receive queue released\n", dev.name());
}

void Target::refresh_port(Device& dev, Port& port, u32 events) {
  constexpr u32 kReread = ((1u << SRPT_PORT_EVENT_COUNT) - 1) & ~(1u << SRPT_PORT_EVENT_ERR);
  const bool reread = (events & kReread) != 0;
  const bool active = srpt_k_port_active(dev.kdev(), port.port_num()) != 0;
  Gid gid{};
  const int gid_ret = reread ? srpt_k_port_gid0(dev.kdev(), port.port_num(), gid.raw) : 0;
  bool make_agent = false;
  {
    MutexGuard guard(lock_);
    if (!port.attached()) return;  // the device is being removed
    if (active != port.up()) {
      port.set_up(active);
      srpt_log(SRPT_LOG_INFO, "%s port %u: %s\n", dev.name(), port.port_num(),
               active ? "active" : "down");
    }
    // GID 0 is briefly absent while the RDMA core replaces it (a MAC
    // change on RoCE deletes the old default GID, then adds the new one,
    // each with its own GID_CHANGE event): noted once, not warned about.
    if (reread && gid_ret == 0 && !port.named()) {
      port.set_gid0_missing(false);
      port.set_gid0(gid);
      srpt_log(SRPT_LOG_NOTICE,
               "%s port %u: GID 0 now readable; target port names %s and %s, served\n",
               dev.name(), port.port_num(), port.guid_name().c_str(),
               port.gid_name().c_str());
    } else if (reread && gid_ret != 0) {
      if (!port.gid0_missing()) {
        port.set_gid0_missing(true);
        srpt_log(SRPT_LOG_INFO,
                 "%s port %u: no GID 0 for now (error %d); target port names "
                 "stay %s and %s until it is back\n",
                 dev.name(), port.port_num(), gid_ret, port.guid_name().c_str(),
                 port.gid_name().c_str());
      }
    } else if (reread && gid == port.gid0() && port.gid0_missing()) {
      port.set_gid0_missing(false);
      srpt_log(SRPT_LOG_INFO, "%s port %u: GID 0 back, unchanged\n", dev.name(),
               port.port_num());
    } else if (reread && gid != port.gid0()) {
      port.set_gid0_missing(false);
      const PortName old_guid = port.guid_name();
      const PortName old_gid = port.gid_name();
      port.set_gid0(gid);
      srpt_log(SRPT_LOG_NOTICE,
               "%s port %u: GID 0 changed; target port names now %s and %s "
               "(were %s and %s)\n",
               dev.name(), port.port_num(), port.guid_name().c_str(),
               port.gid_name().c_str(), old_guid.c_str(), old_gid.c_str());
      for (int f = 0; f < kPortNameFormCount; f++) {
        if (TargetPort* t = port.tport(static_cast<PortNameForm>(f))) {
          srpt_log(SRPT_LOG_NOTICE,
                   "%s port %u: target port %s, made under the old name, "
                   "still serves the port\n",
                   dev.name(), port.port_num(), t->name().c_str());
        }
      }
    }
    make_agent = reread && port.named() && !port.iwarp() && port.dm_agent == nullptr;
  }
  // A port that refused its DM agent (at add, or while it was down) gets
  // one when it comes back, as the in-tree driver re-registers its agent on
  // refresh. Outside the lock: the MAD layer's locks come before ours.
  if (!make_agent) return;
  srpt_k_dm_agent* agent = nullptr;
  if (srpt_k_dm_agent_create(dev.kdev(), port.port_num(), to_abi(dev), &agent) != 0) return;
  MutexGuard guard(lock_);
  port.dm_agent = agent;
  srpt_log(SRPT_LOG_INFO, "%s port %u: device management agent registered\n", dev.name(),
           port.port_num());
}

void Target::dm_answer(Device& dev, u32 port_num, const dm::Mad& req, dm::Mad* rsp) {
  dm::IocFacts f{};
  {
    MutexGuard guard(lock_);
    Port* p = dev.port(port_num);
    f.service_guid = params_.service_guid;
    f.vendor_id = dev.vendor_id();
    f.vendor_part_id = dev.vendor_part_id();
    f.hw_ver = dev.hw_ver();
    f.send_size = params_.max_req_size;
    // Without use_srq, the credits a login gets; with it, the SRQ the
    // logins really share (as in-tree): made with srpt_srq_size buffers,
    // lowered to the device's limit.
    const bool srq = p != nullptr && p->attributes().use_srq;
    const u32 sq_size = p != nullptr ? p->attributes().sq_size : PortAttributes::kDefaultSqSize;
    f.send_queue_depth = !srq          ? login_credits(dev.max_qp_wr(), sq_size)
                         : dev.srq     ? dev.srq->count()
                                       : params_.srq_size;
    f.max_rdma_size = p != nullptr ? p->attributes().max_rdma_size
                                   : PortAttributes::kDefaultMaxRdmaSize;
  }
  dm::answer(req, f, rsp);
}

void Target::remove_device(Device* dev) {
  // 1. Unlisted, ports detached, TPGs disabled: a login that looks the
  //    device up from now on is refused, and one in flight is refused when
  //    it commits (it re-checks its TPG).
  {
    MutexGuard guard(lock_);
    devices_.remove(*dev);
    dev->detach_ports();
    for (Port& p : dev->ports()) {
      for (int f = 0; f < kPortNameFormCount; f++) {
        TargetPort* t = p.tport(static_cast<PortNameForm>(f));
        if (t == nullptr) continue;
        for (Tpg& tpg : t->tpgs()) tpg.enabled_ = false;
        srpt_log(SRPT_LOG_NOTICE,
                 "%s port %u removed; target port %s stays in configfs, "
                 "disabled, until it is removed\n",
                 dev->name(), p.port_num(), t->name().c_str());
      }
    }
  }
  // 2. The device's event work: the shim delivers no port event any more
  //    (it unregistered its handler before calling remove), a refresh
  //    queued before that is taken back, and one already running has made
  //    its DM agent by the time the cancel returns; the agents go below.
  //    (The work itself goes in step 4: until the SRQ is gone, an SRQ
  //    event may queue it.) Only this device's work is waited for: a
  //    release work of another device's channel may wait for its port or
  //    its backstore for long, and must not hold up this removal.
  srpt_k_work_cancel(dev->event_work);
  //    The IB/CM listener, without any login lock: destroying it waits for
  //    its running REQ callbacks, which may wait for a port's login lock
  //    (RegistryTest.DeviceRemovalDestroysTheListener...).
  if (dev->ib_listener != nullptr) srpt_k_listener_destroy(exchange(dev->ib_listener, nullptr));
  //    The DM agents likewise: destroying one waits for its handlers,
  //    which take the Target's lock (dm_answer).
  for (Port& p : dev->ports()) srpt_k_dm_agent_destroy(exchange(p.dm_agent, nullptr));
  // 3. Port by port, under its login lock: logins still in flight there
  //    (RDMA/CM ones, whose listener is not the device's) end first, and a
  //    use_srq write on the port, which uses the device, is done. Any that
  //    takes the lock later finds the port detached. Then the port's
  //    channels, which use the device's queues, go before the device does.
  //    The port list is the device's own and fixed: no lock_ needed.
  for (Port& p : dev->ports()) {
    MutexGuard login(p.login_lock());
    close_channels_and_wait([&p](Channel& ch) { return &ch.port() == &p; },
                            CloseReason::DeviceRemoved);
  }
  //    Every channel gave its receive ring and command contexts back: the
  //    cached ones go now.
  dev->recv_rings->drain();
  dev->cmd_contexts->drain();
  // 4. The SRQ: every channel on it is released, so this drops its last
  //    reference and destroys it, and no SRQ event comes after that. Then
  //    the event work, which such an event may have queued (it would find
  //    the device unlisted).
  RefPtr<SharedRecvQueue> srq;
  {
    MutexGuard guard(lock_);
    srq = move(dev->srq);
  }
  srq.reset();
  srpt_k_work_cancel(dev->event_work);
  srpt_k_work_destroy(exchange(dev->event_work, nullptr));
  // Ports referenced by target ports survive this; the rest go now.
  destroy(dev);
}

void Target::rename_device(Device& dev, StringView name) {
  MutexGuard guard(lock_);
  FixedString<64> old;
  (void)old.assign(StringView::from_cstr(dev.name()));
  if (!dev.rename(name)) {
    srpt_log(SRPT_LOG_WARNING, "device %s renamed to a name of %u bytes; keeps the name %s\n",
             old.c_str(), static_cast<unsigned>(name.size()), old.c_str());
    return;
  }
  srpt_log(SRPT_LOG_INFO, "device %s is now named %s\n", old.c_str(), dev.name());
}

Port* Target::find_attached_port(const ParsedPortName& name) {
  for (Device& d : devices_)
    for (Port& p : d.ports())
      if (p.attached() && p.named() && name.names(p.gid0())) return &p;
  return nullptr;
}

Result<TargetPort*> Target::make_tport(StringView name) {
  Result<ParsedPortName> parsed = parse_port_name(name);
  if (!parsed.ok()) {
    srpt_log(SRPT_LOG_ERR,
             "target port name \"%.*s\" is neither a port GUID "
             "(xxxx:xxxx:xxxx:xxxx) nor a port GID (0x + 32 hex digits)\n",
             static_cast<int>(name.size()), name.data());
    return parsed.error();
  }
  // The lookup, the uniqueness check and the registration are one critical
  // section, so two mkdirs naming the same port cannot both succeed.
  TargetPort* tport = nullptr;
  {
    MutexGuard guard(lock_);
    Port* port = find_attached_port(parsed.value());
    if (port == nullptr) {
      srpt_log(SRPT_LOG_ERR, "no RDMA port has the %s \"%.*s\"\n",
               form_name(parsed.value().form), static_cast<int>(name.size()),
               name.data());
      return Error::Inval;
    }
    PortNameForm form = parsed.value().form;
    if (TargetPort* existing = port->tport(form)) {
      srpt_log(SRPT_LOG_ERR,
               "\"%.*s\" names %s port %u, which already has the target port "
               "%s\n",
               static_cast<int>(name.size()), name.data(), port->device_name(),
               port->port_num(), existing->name().c_str());
      return Error::Exist;
    }
    tport = new (alloc_sleep) TargetPort(RefPtr<Port>(port), form);
    if (tport == nullptr) return Error::NoMem;
    port->set_tport(form, tport);
  }
  return tport;
}

void Target::drop_tport(TargetPort* tport) {
  {
    MutexGuard guard(lock_);
    SRPT_ASSERT(tport->tpgs().empty());
    Port& port = tport->port();
    SRPT_ASSERT(port.tport(tport->form()) == tport);
    port.set_tport(tport->form(), nullptr);
  }
  // Drops the port reference; a port of a removed device dies here.
  destroy(tport);
}

Result<Tpg*> Target::make_tpg(TargetPort& tport, StringView name,
                              srpt_k_tpg* ktpg) {
  (void)name;  // like the in-tree driver, any TPG name is accepted
  Tpg* tpg = new (alloc_sleep) Tpg(tport, ktpg);
  if (tpg == nullptr) return Error::NoMem;
  MutexGuard guard(lock_);
  tport.tpgs().push_back(*tpg);
  return tpg;
}

Status Target::enable_tpg(Tpg& tpg, bool enable) {
  {
    MutexGuard guard(lock_);
    Port& port = tpg.tport().port();
    if (enable && !port.attached()) {
      srpt_log(SRPT_LOG_ERR,
               "cannot enable a TPG of %s: %s port %u has been removed\n",
               tpg.tport().name().c_str(), port.device_name(), port.port_num());
      return Error::NoDev;
    }
    // Disabling first, before waiting for the port's login lock: a login
    // in flight re-checks this flag before it accepts, and is refused.
    tpg.enabled_ = enable;
  }
  if (!enable) {
    MutexGuard login(tpg.tport().port().login_lock());
    close_channels_and_wait([&tpg](Channel& ch) { return ch.tpg() == &tpg; },
                            CloseReason::TpgDisabled);
  }
  return Status::ok_status();
}

void Target::drop_tpg(Tpg* tpg) {
  {
    MutexGuard guard(lock_);
    tpg->enabled_ = false;
  }
  {
    // A login on the port may be using the TPG (its login lock is held
    // from lookup to answer): it ends before the TPG leaves the list.
    MutexGuard login(tpg->tport().port().login_lock());
    close_channels_and_wait([tpg](Channel& ch) { return ch.tpg() == tpg; },
                            CloseReason::TpgDisabled);
    MutexGuard guard(lock_);
    tpg->tport().tpgs().remove(*tpg);
  }
  destroy(tpg);
}

u32 Target::tpg_attribute(Tpg& tpg, srpt_tpg_attr attr) {
  MutexGuard guard(lock_);
  const PortAttributes& a = tpg.tport().port().attributes();
  switch (attr) {
    case SRPT_ATTR_MAX_RDMA_SIZE: return a.max_rdma_size;
    case SRPT_ATTR_MAX_RSP_SIZE: return a.max_rsp_size;
    case SRPT_ATTR_SQ_SIZE: return a.sq_size;
    case SRPT_ATTR_USE_SRQ: return a.use_srq ? 1 : 0;
    default: return 0;
  }
}

Status Target::set_tpg_attribute(Tpg& tpg, srpt_tpg_attr attr, StringView text) {
  const u32 v = SRPT_TRY(parse_kstrto_u32(text));
  using A = PortAttributes;
  u32 lo = 0, hi = 0;
  const char* name = "?";
  switch (attr) {
    case SRPT_ATTR_MAX_RDMA_SIZE:
      lo = A::kMinMaxRdmaSize, hi = A::kMaxMaxRdmaSize, name = "srp_max_rdma_size";
      break;
    case SRPT_ATTR_MAX_RSP_SIZE:
      lo = A::kMinMaxRspSize, hi = A::kMaxMaxRspSize, name = "srp_max_rsp_size";
      break;
    case SRPT_ATTR_SQ_SIZE:
      lo = A::kMinSqSize, hi = A::kMaxSqSize, name = "srp_sq_size";
      break;
    case SRPT_ATTR_USE_SRQ:
      lo = 0, hi = 1, name = "use_srq";
      break;
    default:
      return Error::Inval;
  }
  if (v < lo || v > hi) {
    srpt_log(SRPT_LOG_ERR, "%s=%u out of range [%u, %u]\n", name, v, lo, hi);
    return Error::Inval;
  }
  if (attr == SRPT_ATTR_USE_SRQ) return set_use_srq(tpg, v != 0);
  // New values apply to channels that log in afterwards.
  MutexGuard guard(lock_);
  PortAttributes& a = tpg.tport().port().attributes();
  switch (attr) {
    case SRPT_ATTR_MAX_RDMA_SIZE: a.max_rdma_size = v; break;
    case SRPT_ATTR_MAX_RSP_SIZE: a.max_rsp_size = v; break;
    case SRPT_ATTR_SQ_SIZE: a.sq_size = v; break;
    default: break;
  }
  return Status::ok_status();
}

Device* Target::device_of(const Port& port) {
  for (Device& d : devices_)
    for (Port& p : d.ports())
      if (&p == &port) return &d;
  return nullptr;
}

// As in-tree (srpt_tpg_attrib_use_srq_store): the port's channels are logged
// out, the receive queue changes, the port serves logins again. Unlike
// in-tree, a new SRQ is made first, so that when it cannot be made nothing
// changed: no channel was closed and the port goes on without SRQ.
// The port's login lock is held throughout: no login on the port sees the
// switch half done, and the device cannot be removed meanwhile (removal
// takes each port's login lock before the device goes). Logins on the
// device's other ports go on: they read dev->srq only while their own port
// uses it, and then it is neither made nor dropped here (device.h). Each
// decision about dev->srq is made and applied under lock_, so switches on
// two ports of one device cannot drop one the other still uses
// (LoginLockTest.LoginOnTheOtherPortWhileAUseSrqSwitch...,
// SrqSwitchTest.BothPortsSwitchOffAtOnce); making one is also under the
// device's srq_lock(), so that they make one between them
// (SrqSwitchTest.BothPortsSwitchOnAtOnce).
Status Target::set_use_srq(Tpg& tpg, bool on) {
  Port& port = tpg.tport().port();
  MutexGuard login(port.login_lock());
  Device* dev;
  {
    MutexGuard guard(lock_);
    if (port.attributes().use_srq == on) return Status::ok_status();
    dev = port.attached() ? device_of(port) : nullptr;
    if (dev == nullptr) {
      // The device is gone: there are neither channels nor an SRQ to change.
      port.attributes().use_srq = on;
      return Status::ok_status();
    }
  }
  // use_srq=1 needs the device's SRQ: made here, outside lock_, when the
  // device has none, and installed before the port's use_srq is set, so
  // the port never has use_srq set without an SRQ. The device's srq_lock()
  // keeps another port's switch from making a second one meanwhile; a
  // switch that drops the last use only takes one that exists (and no
  // port of the device has use_srq set then), never the one being made.
  {
    MutexGuard making(dev->srq_lock());
    bool make;
    {
      MutexGuard guard(lock_);
      make = on && !dev->srq;
      if (!make) port.attributes().use_srq = on;
    }
    if (make) {
      Result<RefPtr<SharedRecvQueue>> made = make_srq(*dev);
      if (!made.ok()) {
        srpt_log(SRPT_LOG_ERR,
                 "use_srq=1 on %s: creating the shared receive queue of %s "
                 "failed (%d); the port goes on without SRQ\n",
                 tpg.tport().name().c_str(), dev->name(), made.error().to_kernel());
        return made.error();
      }
      MutexGuard guard(lock_);
      dev->srq = move(made).value();
      srpt_log(SRPT_LOG_INFO, "%s: shared receive queue of %u buffers of %u bytes\n",
               dev->name(), dev->srq->count(), dev->srq->buf_size());
      port.attributes().use_srq = on;
    }
  }
  close_channels_and_wait([&port](Channel& ch) { return &ch.port() == &port; },
                          CloseReason::SrqSwitched);
  // Every channel that used the SRQ dropped its reference in its release
  // work, before close_channels_and_wait saw it released: dropping the
  // device's reference destroys it, unless a port of the device uses it
  // again or still does.
  RefPtr<SharedRecvQueue> unused;
  {
    MutexGuard guard(lock_);
    bool used = false;
    for (Port& p : dev->ports())
      if (p.attributes().use_srq) used = true;
    if (!used && dev->srq) unused = move(dev->srq);
  }
  if (unused) {
    unused.reset();
    srpt_log(SRPT_LOG_INFO, "%s: shared receive queue released\n", dev->name());
  }
  srpt_log(SRPT_LOG_INFO, "%s: use_srq=%d; channels of the port logged out\n",
           tpg.tport().name().c_str(), on ? 1 : 0);
  return Status::ok_status();
}

void Target::stop_rdma_cm() {
  MutexGuard writer(rdma_cm_lock_);
  rdma_cm_stopped_ = true;
  srpt_k_listener* l;
  u16 port;
  {
    MutexGuard guard(lock_);
    l = exchange(rdma_listener_, nullptr);
    port = exchange(rdma_cm_port_, u16{0});
  }
  if (l == nullptr) return;
  // Waits for its running REQ callbacks, which may wait for a port's login
  // lock or lock_: neither is held here.
  srpt_k_listener_destroy(l);
  srpt_log(SRPT_LOG_INFO, "RDMA/CM listener on port %u stopped: the module is unloading\n",
           port);
}

Status Target::set_rdma_cm_port(StringView text) {
  const u16 port = SRPT_TRY(parse_kstrto_u16(text));
  MutexGuard writer(rdma_cm_lock_);
  if (rdma_cm_stopped_) {
    srpt_log(SRPT_LOG_ERR, "cannot listen for RDMA/CM on port %u: the module is unloading\n",
             port);
    return Error::Shutdown;
  }
  {
    MutexGuard guard(lock_);
    if (port == rdma_cm_port_) return Status::ok_status();
  }
  // The new listener first, so a failure leaves the old one serving.
  srpt_k_listener* fresh = nullptr;
  if (port != 0) {
    int ret = srpt_k_rdma_listen(port, &fresh);
    if (ret) {
      srpt_log(SRPT_LOG_ERR, "cannot listen for RDMA/CM on port %u: error %d\n",
               port, ret);
      return Error::from_kernel(ret);
    }
  }
  srpt_k_listener* old;
  {
    MutexGuard guard(lock_);
    old = exchange(rdma_listener_, fresh);
    rdma_cm_port_ = port;
  }
  // Outside lock_: destroying waits for its running REQ callbacks, which
  // take login locks and lock_ (never rdma_cm_lock_).
  if (old != nullptr) srpt_k_listener_destroy(old);
  if (port != 0)
    srpt_log(SRPT_LOG_INFO, "RDMA/CM listening on port %u\n", port);
  else
    srpt_log(SRPT_LOG_INFO, "RDMA/CM listener stopped\n");
  return Status::ok_status();
}

u16 Target::rdma_cm_port() {
  MutexGuard guard(lock_);
  return rdma_cm_port_;
}

u64 Target::service_guid() {
  MutexGuard guard(lock_);
  return params_.service_guid;
}

}  // namespace srpt
