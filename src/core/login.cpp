// SPDX-License-Identifier: GPL-2.0
// The login handler: srpt_cm_req_recv() of this target.
//
// Checks, in order, each with its SRP_LOGIN_REJ reason, grouped by the step
// of Target::login that makes them:
//   parse        private data too short for an SRP_LOGIN_REQ  plain CM reject,
//                                                             no SRP REJ
//   login_port,  unknown device or port (view_port: gone      plain CM reject
//   view_port      since it was looked up)
//   (from here to the answer the port's login lock is held, target.h)
//   check        opcode is not SRP_LOGIN_REQ                  0x00010000
//                req_it_iu_len < 64 or > srp_max_req_size     0x00010002
//                neither direct nor indirect descriptors      0x00010004
//                target_port_id is not ours                   0x00010003
//   check_port   no enabled TPG on the port                   0x00010001
//                channel limit of the I_T nexus reached       0x00010006
//   admit        TPG disabled while the login was in flight   0x00010001
//                no ACL admits the initiator                  0x00010006
//   build        channel resources                            0x00010001
//   attach       TPG disabled while the login was in flight   0x00010001
//                no ACL admits the initiator (ACL removed
//                  since it was asked; the session decides)   0x00010006
//                session setup failed otherwise               0x00010001
//                posting receive buffers failed               0x00010001
//   commit       TPG disabled while the login was in flight   0x00010001
//                session closed while the login was in flight 0x00010001
//                channel limit of the session name reached    0x00010006
//   answer       none: the channel took the cm_id; a failed accept
//                closes it, the answer is still zero
// Every refusal logs one rate-limited line naming the initiator, the reason
// and the cause. The cm_id is adopted by the channel only at the very end,
// right before the accept: every refusal above leaves it to the caller,
// which only login() holds as a CmIdLease the steps cannot take (cm_id.h).
// Nothing is built before the ACL was asked (LoginRejectTest.
// NoAclIsRefusedBeforeAnyChannelIsBuilt): a login no ACL
// admits costs lookups, not a channel.
#include <srpt/abi/log.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/login.h>
#include <srpt/core/target.h>

namespace srpt {
namespace {

const char* reason_name(u32 reason) {
  switch (reason) {
    case srp::kRejUnableToEstablish: return "unable to establish channel";
    case srp::kRejInsufficientResources: return "insufficient resources";
    case srp::kRejIuTooLarge: return "requested IU length too large";
    case srp::kRejUnableToAssociate: return "unable to associate with I_T nexus";
    case srp::kRejUnsupportedDescriptorFmt: return "unsupported descriptor format";
    case srp::kRejMultiChannelUnsupported: return "multi-channel unsupported";
    case srp::kRejChannelLimitReached: return "channel limit reached";
  }
  return "?";
}

}  // namespace

// Every enabled TPG of the port, however many
// (SessionNameTest.EveryEnabledTpgOfThePortIsTried): the short name in the
// TPGs of its GUID-named target port, then the 128-bit port id with and
// without 0x in those of its GID-named one (as in-tree). Looked up one at a
// time under lock_, `fn` runs without it: TPGs cannot be dropped while the
// port's login lock is held, so the one found stays valid. A TPG disabled
// meanwhile shifts the count and may hide the next one from this login: it
// is then refused (as it would be at commit in that TPG) and the
// initiator's next login sees the new set.
template <class Fn>
bool Target::for_each_session_name(Port& port, const SessionNames& names, Fn fn) {
  auto tpg_at = [&](PortNameForm f, usize k) {
    MutexGuard guard(lock_);
    return enabled_tpg(port, f, k);
  };
  auto tried = [&](Tpg& tpg, const InitiatorName& name) {
    return name.size() != 0 && fn(tpg, name);
  };
  bool found = false;
  for (usize k = 0;; k++) {
    Tpg* tpg = tpg_at(PortNameForm::Guid, k);
    if (tpg == nullptr) break;
    found = true;
    if (tried(*tpg, names.short_name)) return true;
  }
  for (usize k = 0;; k++) {
    Tpg* tpg = tpg_at(PortNameForm::Gid, k);
    if (tpg == nullptr) break;
    found = true;
    if (tried(*tpg, names.port_id_0x) || tried(*tpg, names.port_id_hex)) return true;
  }
  return found;
}

LoginVerdict Target::reject(CmIdLease&& lease, const LoginAttempt& at,
                            const Rejection& r) {
  srp::LoginRej rej{};
  rej.opcode = srp::kLoginRej;
  rej.reason.set(r.reason);
  rej.tag = at.req.tag;
  rej.buf_fmt.set(srp::kBufFmtDirect | srp::kBufFmtIndirect);
  const SessionNames& names = at.names;
  if (log_limit_.admit(names.short_name.view()))
    srpt_log(SRPT_LOG_WARNING,
             "login from %s (%s) rejected: 0x%08x %s: %s\n",
             names.short_name.c_str(), names.port_id_0x.c_str(),
             r.reason, reason_name(r.reason), r.cause);
  const int ret = srpt_k_cm_reject(at.ev.kind, lease.get(), &rej, sizeof(rej));
  if (ret && log_limit_.admit(names.short_name.view()))
    srpt_log(SRPT_LOG_WARNING, "sending the reject failed: %d\n", ret);
  return LoginVerdict::caller_keeps(move(lease), Error::ConnRefused);
}

LoginVerdict Target::refuse_unparsed(CmIdLease&& lease, const srpt_login_event& ev) {
  const char* peer = ev.src_addr && ev.src_addr[0] ? ev.src_addr : "an IB/CM peer";
  if (log_limit_.admit(StringView::from_cstr(peer)))
    srpt_log(SRPT_LOG_WARNING,
             "connection request from %s: %zu bytes of private "
             "data are no SRP_LOGIN_REQ; rejected without SRP reply\n",
             peer, ev.priv_len);
  (void)srpt_k_cm_reject(ev.kind, lease.get(), nullptr, 0);
  return LoginVerdict::caller_keeps(move(lease), Error::Inval);
}

LoginVerdict Target::refuse_unknown_port(CmIdLease&& lease, const LoginAttempt& at) {
  if (log_limit_.admit(at.names.short_name.view()))
    srpt_log(SRPT_LOG_WARNING,
             "login from %s on an unknown device or port %u: "
             "rejected without SRP reply\n",
             at.names.short_name.c_str(), at.ev.port_num);
  (void)srpt_k_cm_reject(at.ev.kind, lease.get(), nullptr, 0);
  return LoginVerdict::caller_keeps(move(lease), Error::NoDev);
}

// The cm_id rule (cm_id.h) in the shape of this function: the lease is lent
// to it by the CM core, and only two calls take it, each ending the login:
// a refusal gives it back (non-zero), answer() lets the registered channel
// adopt it (zero). Every step between sees the lease const: it may lend the
// cm_id on (the RDMA/CM QP is made on it) but can neither keep it nor give
// it back.
LoginVerdict Target::login(const srpt_login_event& ev) {
  CmIdLease lease(ev.kind, ev.cm);
  Result<LoginRequest> parsed = LoginRequest::parse(ev.kind, ev.priv, ev.priv_len);
  if (!parsed.ok()) return refuse_unparsed(move(lease), ev);
  const LoginAttempt at{
      ev, parsed.value(),
      session_names(ev.kind, parsed.value().initiator_port_id, ev.initiator_gid,
                    StringView::from_cstr(ev.src_addr ? ev.src_addr : ""))};

  // Acquired in this order, released in reverse when this returns: the
  // port, its login lock (before lock_, target.h; held until the answer, so
  // a login waits only for what uses the same port), and in prepare() the
  // channel and its registration.
  RefPtr<Port> port = login_port(ev);
  if (!port) return refuse_unknown_port(move(lease), at);
  Port& p = *port;
  MutexGuard login_lock(p.login_lock());
  Result<LoginPortView> view = view_port(at, p);
  if (!view.ok()) return refuse_unknown_port(move(lease), at);
  LoginStep<CommittedLogin> done = prepare(at, p, view.value(), lease);
  if (!done.ok()) return reject(move(lease), at, done.rejection());
  return answer(move(lease), at, move(done).value());
}

// The steps under the port's login lock, in the order of the table at the
// top. A refusal returns at once; a channel built by then is a local
// PendingChannel and aborts before login() sends the reject.
LoginStep<CommittedLogin> Target::prepare(const LoginAttempt& at, Port& port,
                                          const LoginPortView& view,
                                          const CmIdLease& lease) {
  const LoginGrant grant = SRPT_LOGIN_TRY(check_login_request(at.req, view.limits));
  SRPT_LOGIN_TRY(check_port(view, grant));
  SRPT_LOGIN_TRY(admit(at, port));
  PendingChannel ch = SRPT_LOGIN_TRY(build_channel(at, port, view, grant, lease));
  SRPT_LOGIN_TRY(attach_session(at, port, ch));
  SRPT_LOGIN_TRY(post_receives(ch));
  return commit(ch, grant);
}

// The port, for its login lock: looked up under lock_, locked by the
// caller, and then checked again (view_port).
RefPtr<Port> Target::login_port(const srpt_login_event& ev) {
  MutexGuard guard(lock_);
  Device* dev = find_device(ev.kdev);
  Port* p = dev ? dev->port(ev.port_num) : nullptr;
  return p != nullptr && p->attached() ? RefPtr<Port>(p) : RefPtr<Port>();
}

// Registry lookups under the port's login lock: its device still there,
// its attributes, whether it has an enabled TPG, the nexus' channels.
// Error::NoDev when the device went meanwhile (device removal detaches the
// port and unlists the device at once); the caller answers with a plain
// reject outside lock_, which is never held across a CM call.
Result<LoginPortView> Target::view_port(const LoginAttempt& at, Port& port) {
  MutexGuard guard(lock_);
  Device* dev = port.attached() ? find_device(at.ev.kdev) : nullptr;
  if (dev == nullptr) return Error::NoDev;
  const PortAttributes& a = port.attributes();
  LoginPortView v{};
  v.rings = dev->recv_rings.get();
  v.cmd_contexts = dev->cmd_contexts.get();
  v.max_cqe = dev->max_cqe();
  v.limits.max_req_size = params_.max_req_size;
  v.limits.service_guid = params_.service_guid;
  v.limits.max_rsp_size = a.max_rsp_size;
  v.limits.recv_depth = login_credits(dev->max_qp_wr(), a.sq_size);
  v.sq_size = a.sq_size;
  // dev->srq is stable while the port uses it (device.h), and the port's
  // use_srq cannot change while its login lock is held.
  if (a.use_srq && dev->srq) {
    v.srq = dev->srq;
    // An IU must fit an SRQ buffer (srp_max_req_size bytes: the grant
    // never exceeds that anyway).
    v.limits.max_req_size = min(v.limits.max_req_size, v.srq->buf_size());
    v.limits.required_imm_offset = v.srq->imm_offset();
  }
  for (int f = 0; f < kPortNameFormCount; f++)
    if (enabled_tpg(port, static_cast<PortNameForm>(f), 0) != nullptr) v.has_tpg = true;
  for (Channel& ch : channels_)
    if (ch.is_nexus(port, at.req.initiator_port_id, at.req.target_port_id) &&
        ch.state() < Channel::State::Closing)
      v.nexus_channels++;
  return move(v);
}

// What the port allows before anyone is asked: an enabled TPG, and room
// for one more MULTI channel of the I_T nexus.
LoginStep<void> Target::check_port(const LoginPortView& view, const LoginGrant& grant) {
  if (!view.has_tpg)
    return Rejection{srp::kRejInsufficientResources, "no enabled TPG on this port"};
  if (grant.multi_channel && view.nexus_channels >= params_.max_nexus_channels)
    return Rejection{srp::kRejChannelLimitReached,
                     "max_channels_per_nexus channels already logged in"};
  return LoginStep<void>::go_on();
}

// The cheap refusal: does any enabled TPG of the port have an ACL for one
// of the initiator's names? Only advice (an ACL may go before the session
// is set up, which decides in attach_session), but it spares building a
// channel for an initiator nobody admits.
LoginStep<void> Target::admit(const LoginAttempt& at, Port& port) {
  bool admitted = false;
  const bool tpg_left = for_each_session_name(
      port, at.names, [&](Tpg& tpg, const InitiatorName& name) {
        admitted = srpt_k_tpg_admits(tpg.ktpg(), name.c_str()) != 0;
        return admitted;
      });
  if (!tpg_left)
    return Rejection{srp::kRejInsufficientResources,
                     "TPG disabled while the login was in flight"};
  if (!admitted)
    return Rejection{srp::kRejChannelLimitReached, "no ACL admits this initiator"};
  return LoginStep<void>::go_on();
}

// Every resource of the channel but the session. The RDMA/CM QP is made on
// the lent cm_id, which the channel does not take here.
LoginStep<PendingChannel> Target::build_channel(const LoginAttempt& at, Port& port,
                                                const LoginPortView& view,
                                                const LoginGrant& grant,
                                                const CmIdLease& lease) {
  Channel::Config cfg{};
  cfg.target = this;
  cfg.kdev = at.ev.kdev;
  cfg.port = RefPtr<Port>(&port);
  cfg.kind = at.ev.kind;
  cfg.pkey = at.ev.pkey;
  cfg.grant = grant;
  cfg.slots = grant.req_lim_delta;
  cfg.sq_size = view.sq_size;
  // A response never exceeds what the initiator was told to expect;
  // build_srp_rsp() truncates sense data to fit.
  cfg.send_buf_size = grant.max_ti_iu_len;
  for (int i = 0; i < 16; i++) {
    cfg.i_port_id[i] = at.req.initiator_port_id[i];
    cfg.t_port_id[i] = at.req.target_port_id[i];
  }
  cfg.names = at.names;
  cfg.srq = view.srq;
  cfg.rings = view.rings;
  cfg.cmd_contexts = view.cmd_contexts;
  cfg.max_cqe = view.max_cqe;
  const char* failed_step = nullptr;
  Result<RefPtr<Channel>> made = Channel::create(cfg, lease.get(), &failed_step);
  if (!made.ok()) {
    if (log_limit_.admit(at.names.short_name.view()))
      srpt_log(SRPT_LOG_WARNING, "channel for %s: %s failed: %d\n",
               at.names.short_name.c_str(), failed_step,
               made.error().to_kernel());
    return Rejection{srp::kRejInsufficientResources, "channel resources"};
  }
  return PendingChannel(move(made).value());
}

// The session, under the names and in the order of admit(). The target
// core's answer decides: an ACL removed since it was asked is refused here.
LoginStep<void> Target::attach_session(const LoginAttempt& at, Port& port,
                                       PendingChannel& ch) {
  int sess_ret = -SRPT_EACCES;
  srpt_k_session* sess = nullptr;
  // An enabled TPG was found: "no ACL" is its answer.
  const bool found = for_each_session_name(
      port, at.names, [&](Tpg& tpg, const InitiatorName& name) {
        int ret = srpt_k_session_create(tpg.ktpg(), name.c_str(), to_abi(*ch), &sess);
        if (ret == 0) {
          ch->set_session(sess, &tpg, name);
          return true;
        }
        sess = nullptr;
        if (ret != -SRPT_EACCES) sess_ret = ret;  // resources beat "no ACL"
        return false;
      });
  if (sess != nullptr) return LoginStep<void>::go_on();
  // Every TPG disabled since the ACL check: the answer is the one a
  // disabled TPG gets at commit (guest cases 23/24,
  // LoginResourceTest.TpgDisabledBeforeTheSessionIsSetUpIs00010001).
  if (!found)
    return Rejection{srp::kRejInsufficientResources,
                     "TPG disabled while the login was in flight"};
  if (sess_ret == -SRPT_EACCES)
    return Rejection{srp::kRejChannelLimitReached, "no ACL admits this initiator"};
  return Rejection{srp::kRejInsufficientResources, "session setup failed"};
}

LoginStep<void> Target::post_receives(PendingChannel& ch) {
  if (!ch->post_receives().ok())
    return Rejection{srp::kRejInsufficientResources, "posting receive buffers failed"};
  return LoginStep<void>::go_on();
}

// What may have changed while the login ran without lock_: the TPG may
// have been disabled (disable does not wait for the port's login lock to
// clear the flag), and the target core may have closed the session (an
// ACL removed; close_session takes no login lock either). The re-check,
// the registration and the SINGLE takeover happen under lock_ at once. A
// refusal leaves `ch` pending: the caller's scope aborts it after lock_ is
// dropped.
LoginStep<CommittedLogin> Target::commit(PendingChannel& ch, const LoginGrant& grant) {
  MutexGuard guard(lock_);
  if (!ch->tpg()->enabled())
    return Rejection{srp::kRejInsufficientResources,
                     "TPG disabled while the login was in flight"};
  if (ch->state() >= Channel::State::Closing)
    return Rejection{srp::kRejInsufficientResources,
                     "session closed while the login was in flight"};
  if (session_channels(*ch, grant.multi_channel) >= params_.max_nexus_channels)
    return Rejection{srp::kRejChannelLimitReached,
                     "max_channels_per_nexus channels already logged in under this "
                     "session name"};
  CommittedLogin c;
  c.ch = ch.registered();
  c.ch->add_ref();  // the registry's reference, dropped by the release work
  c.ch->set_login_time_ns(srpt_k_now_ns());
  c.ch->set_login_serial(++logins_);
  channels_.push_back(*c.ch);
  for (Channel& other : channels_) {
    if (&other == c.ch.get() || !other.same_nexus(*c.ch)) continue;
    if (other.state() >= Channel::State::Closing) continue;
    c.others = true;
    if (!grant.multi_channel) {
      c.terminated_others = true;
      other.close(CloseReason::Terminated);  // never sleeps
    }
  }
  return move(c);
}

// The channel takes the cm_id, right before the accept. From here on the
// answer is zero whatever happens: a failure is torn down through the
// channel's release work.
LoginVerdict Target::answer(CmIdLease&& lease, const LoginAttempt& at,
                            CommittedLogin&& c) {
  Channel& ch = *c.ch;
  const LoginGrant& grant = ch.grant();
  srp::LoginRsp rsp{};
  rsp.opcode = srp::kLoginRsp;
  rsp.req_lim_delta.set(grant.req_lim_delta);
  rsp.tag = at.req.tag;
  rsp.max_it_iu_len.set(grant.max_it_iu_len);
  rsp.max_ti_iu_len.set(grant.max_ti_iu_len);
  rsp.buf_fmt.set(srp::kBufFmtDirect | srp::kBufFmtIndirect);
  rsp.rsp_flags = c.terminated_others ? srp::kRspTerminated
                  : c.others          ? srp::kRspMaintained
                                      : srp::kRspNoChan;
  if (grant.immediate) rsp.rsp_flags |= srp::kRspImmedSupported;

  OwnedCmId::Adoption adoption = OwnedCmId::adopt(move(lease));
  counters_.cm_adopted();
  Status accepted = ch.accept(move(adoption.id), rsp);
  if (!accepted.ok()) {
    if (log_limit_.admit(at.names.short_name.view()))
      srpt_log(SRPT_LOG_WARNING, "login from %s: accept failed: %d\n",
               at.names.short_name.c_str(), accepted.to_kernel());
    ch.close(CloseReason::LoginFailed);
    ch.arm();
    return LoginVerdict::channel_owns(move(adoption.proof));
  }
  ch.arm();
  srpt_log(SRPT_LOG_INFO,
           "login from %s (%s) as %s: it_iu_len %u, ti_iu_len %u, req_lim %u%s%s%s\n",
           at.names.short_name.c_str(), at.names.port_id_0x.c_str(), ch.session_name(),
           grant.max_it_iu_len, grant.max_ti_iu_len, grant.req_lim_delta,
           grant.immediate ? ", immediate data" : "", ch.uses_srq() ? ", SRQ" : "",
           c.terminated_others ? ", older channels terminated" : "");
  return LoginVerdict::channel_owns(move(adoption.proof));
}

Tpg* Target::enabled_tpg(Port& port, PortNameForm form, usize k) {
  TargetPort* t = port.tport(form);
  if (t == nullptr) return nullptr;
  for (Tpg& tpg : t->tpgs()) {
    if (!tpg.enabled()) continue;
    if (k == 0) return &tpg;
    k--;
  }
  return nullptr;
}

// The initiator port id, and so the nexus, is the initiator's to choose:
// what bounds one admitted initiator is its session name (its ACL) in the
// TPG (NexusLimitTest.LoginsBeyondTheLimitUnderOne...).
// A SINGLE login replaces the channels of its own nexus: those do not count.
usize Target::session_channels(const Channel& ch, bool multi) {
  usize n = 0;
  for (Channel& other : channels_) {
    if (&other == &ch || !other.same_session(ch)) continue;
    if (!multi && other.same_nexus(ch)) continue;
    if (other.state() >= Channel::State::Closing) continue;
    n++;
  }
  return n;
}

void Target::show_channels(srpt_k_seq* seq) {
  MutexGuard guard(lock_);
  // Taken under lock_, as commit() stamps each channel it registers: no
  // listed channel is younger than `now`, and no age wraps below zero.
  const u64 now = srpt_k_now_ns();
  srpt_k_seq_printf(seq,
                    "# initiator_port_id session cm state port recv_depth "
                    "slots busy waiting req_lim it_iu_len ti_iu_len imm age_s rq\n");
  for (Channel& ch : channels_) {
    const Channel::Snapshot s = ch.snapshot();
    static const char* const kStates[] = {"connecting", "live", "closing", "released"};
    const u64 age = (now - ch.login_time_ns()) / 1000000000ull;
    srpt_k_seq_printf(seq, "%s %s %s %s %s/%u %u %u %u %u %u %u %u %s %llu %s\n",
                      ch.names().port_id_0x.c_str(), ch.session_name(),
                      ch.kind() == SRPT_CM_IB ? "ib_cm" : "rdma_cm",
                      kStates[static_cast<int>(s.state)], ch.port().device_name(),
                      ch.port().port_num(), ch.grant().req_lim_delta, ch.slots(),
                      s.busy_slots, s.waiting, s.req_lim, ch.grant().max_it_iu_len,
                      ch.grant().max_ti_iu_len, ch.grant().immediate ? "yes" : "no",
                      static_cast<unsigned long long>(age),
                      ch.uses_srq() ? "srq" : "own");
  }
}

void Target::show_objects(srpt_k_seq* seq) {
  const ObjectCounts c = counters_.snapshot();
  unsigned long long cached = 0, reused = 0, sets_cached = 0, sets_reused = 0;
  {
    MutexGuard guard(lock_);
    for (Device& d : devices_) {
      cached += d.recv_rings->cached();
      reused += d.recv_rings->reused();
      sets_cached += d.cmd_contexts->cached();
      sets_reused += d.cmd_contexts->reused();
    }
  }
  srpt_k_seq_printf(seq,
                    "channels %llu\ncm_adopted %llu\ncm_destroyed %llu\n"
                    "recv_rings_cached %llu\nrecv_rings_reused %llu\n"
                    "cmd_sets_cached %llu\ncmd_sets_reused %llu\n",
                    static_cast<unsigned long long>(c.channels_live),
                    static_cast<unsigned long long>(c.cm_adopted),
                    static_cast<unsigned long long>(c.cm_destroyed), cached, reused,
                    sets_cached, sets_reused);
}

}  // namespace srpt
