// SPDX-License-Identifier: GPL-2.0
// Channel, its lifetime (channel.h): create, the login's steps (session,
// receives, accept, arm), close, the release work, CM events.
//
// Relies on:
// - ChannelState: close() queues the release work at most once, and only
//   once armed; before that the login aborts the channel itself.
// - The release work is the only path that frees a channel's resources, and
//   runs in process context with no dispatch inside gate_ (it closes the
//   gate first and waits).
// - Every resource create() made is freed by destroy_resources(), whatever
//   step failed.
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/target.h>
#include <srpt/rt/assert.h>

namespace srpt {

Channel::Channel(const Config& cfg, SpinLock lock, DispatchGate gate, RequestFifo ius)
    : cfg_(cfg), lock_(move(lock)), gate_(move(gate)), ius_(move(ius)) {
  if (cfg_.target != nullptr) cfg_.target->counters().channel_made();
  iu_limits_.max_it_iu_len = cfg.grant.max_it_iu_len;
  iu_limits_.immediate = cfg.grant.immediate;
  iu_limits_.imm_data_offset = cfg.grant.imm_data_offset;
  srq_ = cfg_.srq.get();
  srq_identity_ = srq_;
}

Result<RefPtr<Channel>> Channel::create(const Config& cfg, srpt_k_cm* cm,
                                        const char** failed_step) {
  const u32 depth = cfg.grant.req_lim_delta;
  *failed_step = "channel";
  SpinLock lock = SRPT_TRY(SpinLock::create(SRPT_LOCK_CHANNEL));
  *failed_step = "dispatch gate";
  DispatchGate gate = SRPT_TRY(DispatchGate::create());
  *failed_step = "pending IU table";
  RequestFifo ius = SRPT_TRY(RequestFifo::create(depth));
  *failed_step = "channel";
  RefPtr<Channel> ch = RefPtr<Channel>::adopt(
      new (alloc_sleep) Channel(cfg, move(lock), move(gate), move(ius)));
  if (!ch) return Error::NoMem;
  Channel& c = *ch;

  // From here on ~Channel frees whatever was made (destroy_resources).
  *failed_step = "command table";
  c.cmds_ = new (alloc_sleep) Command*[cfg.slots];
  if (c.cmds_ == nullptr) return Error::NoMem;
  for (u32 i = 0; i < cfg.slots; i++) {
    *failed_step = "command";
    c.cmds_[i] = new (alloc_sleep) Command(c, i);
    if (c.cmds_[i] == nullptr) return Error::NoMem;
  }

  int ret = 0;
  if (!cfg.srq) {
    *failed_step = "receive ring";
    // A released channel's ring when the device kept one of this geometry.
    c.recv_ring_ = SRPT_TRY(cfg.rings->take(recv_ring_geometry(cfg)));
  }
  *failed_step = "send ring";
  ret = srpt_k_ring_create(cfg.kdev, cfg.slots, cfg.send_buf_size, 0,
                           SRPT_RING_SEND, &c.send_ring_);
  if (ret) return Error::from_kernel(ret);

  // No descriptor-table buffers: a slot makes its own when a command first
  // needs one (Channel::table_store), which ib_srp's usual logins never do.

  *failed_step = "queue pair";
  srpt_qp_params qp{};
  qp.send_depth = send_queue_depth(cfg.slots, cfg.sq_size);
  // The CQ, shared from the device's pool with other channels, must hold
  // every receive completion this QP can produce, or its overflow breaks
  // all the channels on it. An own receive queue bounds them by the
  // credits; an SRQ does not: an initiator that ignores its credits can be
  // given every buffer posted on the SRQ before the channel sees the
  // excess and closes (in-tree's per-channel CQ of 4224 entries holds a
  // default SRQ too).
  qp.recv_depth = cfg.srq ? cfg.srq->count() : depth;
  qp.srq = cfg.srq ? cfg.srq->ksrq() : nullptr;
  qp.pkey = cfg.pkey;
  qp.ctx = to_abi(c);
  // The shim gives the QP a CQ (shared, from the RDMA core's pool) with
  // room for every work request the QP can hold and a drain request on
  // each side (queue.c). A CQ larger than the device's largest is one the
  // pool can never find: it would make CQs of the largest size until
  // memory ran out. An SRQ of more buffers than that (srpt_srq_size)
  // refuses the login instead.
  if (u64{qp.send_depth} + qp.recv_depth + 2 > cfg.max_cqe) {
    *failed_step =
        "completion queue (more entries than the device's largest CQ; lower srpt_srq_size)";
    return Error::Inval;
  }
  ret = srpt_k_qp_create(cfg.kind, cm, cfg.kdev, cfg.port->port_num(), &qp,
                         &c.qp_);
  if (ret) return Error::from_kernel(ret);
  c.sq_depth_ = qp.send_depth;

  *failed_step = "command context";
  // A released channel's contexts when the device kept a set of this size.
  c.kcmds_ = SRPT_TRY(cfg.cmd_contexts->take(cfg.slots));
  for (u32 i = 0; i < cfg.slots; i++) {
    ret = c.kcmds_->bind(i, c.qp_, cfg.port->port_num(), to_abi(*c.cmds_[i]));
    if (ret) return Error::from_kernel(ret);
    c.cmds_[i]->kcmd = c.kcmds_->at(i);
  }

  *failed_step = "release work";
  ret = srpt_k_work_create(&Channel::release_work_fn, &c, &c.release_work_);
  if (ret) return Error::from_kernel(ret);
  *failed_step = "completion";
  ret = srpt_k_completion_create(&c.released_);
  if (ret) return Error::from_kernel(ret);

  {
    SpinGuard g(c.lock_);
    for (u32 i = 0; i < cfg.slots; i++) c.slots_.add(*c.cmds_[i]);
    c.sq_.reset(c.sq_depth_);
  }
  *failed_step = nullptr;
  return move(ch);
}

// Frees what create() made, in reverse but for the command contexts, which
// go back after the QP (a context another login may rebind must not be
// named by work on this QP). Runs with no completion pending and every
// command released: either the QP never had work posted, or it was drained
// by srpt_k_qp_destroy. A second call (the destructor's) touches nothing
// of the device: the release work runs it after it signalled the release,
// and device removal, which waits only for that signal, may have freed the
// device's caches by then.
void Channel::destroy_resources() {
  if (cmds_ != nullptr) {
    for (u32 i = 0; i < cfg_.slots; i++)
      if (cmds_[i] != nullptr) cmds_[i]->kcmd = nullptr;
  }
  if (qp_ != nullptr) srpt_k_qp_destroy(exchange(qp_, nullptr));
  if (kcmds_) cfg_.cmd_contexts->give(move(kcmds_));
  // The slots' table buffers: no table read can be in flight any more.
  if (cmds_ != nullptr) {
    for (u32 i = 0; i < cfg_.slots; i++)
      if (cmds_[i] != nullptr) srpt_k_ring_destroy(exchange(cmds_[i]->table, nullptr));
  }
  srpt_k_ring_destroy(exchange(send_ring_, nullptr));
  // With the QP gone no receive is posted or in flight: the ring may serve
  // the device's next login.
  if (recv_ring_ != nullptr)
    cfg_.rings->give(exchange(recv_ring_, nullptr), recv_ring_geometry(cfg_));
}

RecvRingCache::Geometry Channel::recv_ring_geometry(const Config& cfg) {
  // Immediate data is handed to the target core in place: sector-aligned.
  return {cfg.grant.req_lim_delta, cfg.grant.max_it_iu_len, cfg.grant.imm_data_offset};
}

Channel::~Channel() {
  SRPT_ASSERT(!target_node.linked());
  SRPT_ASSERT(!cm_.held());
  SRPT_ASSERT(sess_ == nullptr);
  destroy_resources();
  {
    // The slots go below; nothing posts any more.
    SpinGuard g(lock_);
    slots_.forget();
    sq_.forget_waiters();
  }
  if (cmds_ != nullptr) {
    for (u32 i = 0; i < cfg_.slots; i++) destroy(cmds_[i]);
    destroy_array(cmds_);
  }
  srpt_k_completion_destroy(released_);
  // The release work's last action may be dropping the last reference: the
  // work item is then running (this very call), never pending.
  srpt_k_work_destroy(release_work_);
  if (cfg_.target != nullptr) cfg_.target->counters().channel_gone();
}

void Channel::set_session(srpt_k_session* sess, Tpg* tpg,
                          const InitiatorName& name) {
  sess_ = sess;
  tpg_ = tpg;
  (void)sess_name_.assign(name.view());
}

Status Channel::post_receives() {
  // On an SRQ every buffer is posted already.
  if (srq_ != nullptr) return Status::ok_status();
  for (u32 i = 0; i < cfg_.grant.req_lim_delta; i++) {
    int ret = srpt_k_post_recv(qp_, recv_ring_, i);
    if (ret) return Error::from_kernel(ret);
  }
  return Status::ok_status();
}

void Channel::abort_login() {
  // Process context, inside the REQ callback; the CM core still owns the
  // cm_id and destroys it after we return non-zero. Closing first makes the
  // flushed completions below no-ops instead of queueing the release work.
  {
    SpinGuard g(lock_);
    (void)state_.close(CloseReason::LoginFailed);
  }
  if (qp_ != nullptr) srpt_k_qp_error(qp_);
  if (sess_ != nullptr) {
    srpt_k_session_drain(sess_);
    srpt_k_session_remove(exchange(sess_, nullptr));
  }
  destroy_resources();
  return_pending_to_srq();
  drop_srq();
  SpinGuard g(lock_);
  (void)state_.released();
}

void Channel::return_pending_to_srq() {
  if (srq_ == nullptr) return;
  for (;;) {
    u32 index;
    {
      SpinGuard g(lock_);
      if (ius_.waiting() == 0) return;
      index = ius_.pop().index;
    }
    give_back(index);
  }
}

void Channel::drop_srq() {
  // Process context. Every buffer this channel took from the SRQ is back,
  // and its QP is destroyed: the SRQ may go with this reference.
  srq_ = nullptr;
  cfg_.srq.reset();
}


Status Channel::accept(OwnedCmId id, const srp::LoginRsp& rsp) {
  cm_ = move(id);
  srpt_k_cm_set_context(cm_.kind(), cm_.get(), to_abi(*this));
  int ret = srpt_k_cm_accept(cm_.kind(), cm_.get(), qp_, &rsp, sizeof(rsp));
  if (ret) return Error::from_kernel(ret);
  return Status::ok_status();
}

Channel::State Channel::state() {
  SpinGuard g(lock_);
  return state_.get();
}

Channel::Snapshot Channel::snapshot() {
  SpinGuard g(lock_);
  return Snapshot{state_.get(), ius_.req_lim(), slots_.busy(), ius_.waiting()};
}

bool Channel::is_nexus(const Port& port, const u8 (&i_port_id)[16],
                       const u8 (&t_port_id)[16]) const {
  if (cfg_.port.get() != &port) return false;
  for (int i = 0; i < 16; i++)
    if (cfg_.i_port_id[i] != i_port_id[i] || cfg_.t_port_id[i] != t_port_id[i])
      return false;
  return true;
}

bool Channel::same_nexus(const Channel& o) const {
  return is_nexus(*o.cfg_.port, o.cfg_.i_port_id, o.cfg_.t_port_id);
}

// --- closing and release -------------------------------------------------

void Channel::close(CloseReason why) {
  {
    SpinGuard g(lock_);
    // LoginAborts: the login is still running; it aborts the channel
    // itself, or queues the release work from arm().
    if (state_.close(why) != ChannelState::CloseStep::QueueRelease) return;
  }
  // The queued work holds a reference until it has run.
  add_ref();
  srpt_k_work_queue(release_work_);
}

void Channel::arm() {
  {
    SpinGuard g(lock_);
    if (!state_.arm()) return;
  }
  // Closed while the login finished (or the accept failed): release now.
  add_ref();
  srpt_k_work_queue(release_work_);
}

void Channel::close_and_wait(CloseReason why) {
  close(why);
  (void)srpt_k_wait(released_, ~u32{0});
}

void Channel::release_work_fn(void* arg) {
  // SAFETY: close() took a reference for this work before queueing it.
  static_cast<Channel*>(arg)->release();
}

void Channel::release() {
  bool reply;
  CloseReason why;
  u32 ext_tables, split;
  {
    SpinGuard g(lock_);
    reply = state_.reply_disconnect();
    why = state_.reason();
    ext_tables = ext_tables_;
    split = split_;
  }
  srpt_log(SRPT_LOG_INFO, "channel %s (%s) closing: %s\n", sess_name_.c_str(),
           cfg_.names.port_id_0x.c_str(), close_reason_name(why));
  if (ext_tables != 0)
    srpt_log(SRPT_LOG_INFO, "channel %s: %u external descriptor tables fetched\n",
             sess_name_.c_str(), ext_tables);
  if (split != 0)
    srpt_log(SRPT_LOG_INFO, "channel %s: %u transfers posted in parts\n",
             sess_name_.c_str(), split);

  // 1. Tell the initiator and stop the queues: every posted request now
  //    completes (flushed), so commands in the target core can finish.
  await_port_for_disconnect(why);
  if (cm_.held()) (void)srpt_k_cm_disconnect(cm_.kind(), cm_.get(), reply ? 1 : 0);
  srpt_k_qp_error(qp_);
  // Dispatches in flight post on the QP and submit to the session: both
  // stay until the last one is done
  // (ChannelTest.ReleaseWaitsForADispatchThatIsPosting).
  gate_.close_and_wait();
  // 2. No new commands; wait for the ones in flight (their responses fail
  //    or flush, and each is freed from its send completion).
  if (sess_ != nullptr) {
    srpt_k_session_drain(sess_);
    srpt_k_session_remove(exchange(sess_, nullptr));
  }
  // 3. The QP (waits for the last completion) and the cm_id (waits for its
  //    running callbacks; we are in our own work item, not in one of them).
  //    IB/CM: the cm_id first, because its RTU callback moves the QP to RTS
  //    and may still be running; the QP no longer refers to the cm_id
  //    since srpt_k_qp_error() above (its event handler notified it).
  //    RDMA/CM: the QP first, because it was made on the cm_id
  //    (rdma_create_qp) and is destroyed through it; its callbacks never
  //    touch the QP.
  if (cfg_.kind == SRPT_CM_IB && cm_.held()) destroy_cm();
  srpt_k_qp_destroy(exchange(qp_, nullptr));
  if (cm_.held()) destroy_cm();
  destroy_resources();
  // SRQ: IUs that were never dispatched go back; commands gave theirs back
  // when they finished (the session drain above waited for all of them),
  // and no receive completion of the QP runs after srpt_k_qp_destroy()
  // (queue.h). Not yet proven on a device that never raises Last WQE
  // Reached (rxe on 6.1): one it flushes during the destroy could come
  // late; see srpt_k_qp_drain_srq() in src/shim/queue.c and README.md,
  // "Limitations".
  // The reference goes before waiters wake, so that whoever waits for this
  // channel (use_srq switch, device removal) can destroy the SRQ after.
  return_pending_to_srq();
  drop_srq();
  {
    SpinGuard g(lock_);
    // Every request IU buffer came back, from its command or from the
    // FIFO: on an SRQ one still held would be lost to every channel.
    (void)SRPT_CHECK_FAILED(ius_.held() == 0);
    (void)state_.released();
  }
  cfg_.target->unregister_channel(*this);
  srpt_k_complete(released_);
  // The registry's reference (never the last: this work holds one), then
  // the one close() took for this work.
  const bool registry_ref_was_last = release_ref();
  SRPT_ASSERT(!registry_ref_was_last);
  if (release_ref()) destroy(this);
}

// The DREQ is a MAD on the port's GSI QP (QP1), and so is the one ib_cm
// sends when an established cm_id is destroyed. Sent while the port is down
// it is lost at best; rxe turns a send it cannot route into the error state
// of the sending QP, and for QP1 that is for good: no login on the device is
// answered again (case 51; case 44 hit it when a response failed in a link
// flap). A flap lasts seconds, so the release waits for the port, at most
// kPortWaitMs from here; after a longer outage the DREQ goes out (and is
// lost) as before. Device removal does not wait: the port is going away;
// nor does a channel that closed for another reason and is still waiting
// when its device is removed (removal waits for its release: up to 20 s
// for a port that will not come back;
// ChannelTest.DeviceRemovalDoesNotWaitForTheDisconnectOfAChannelClosedBefore).
// Costs nothing while the port is up: one query.
// The wait asks for the link, not the port state: a RoCE port stays ACTIVE
// for a while after its network device stopped, and a response that failed
// because the link went down closes the channel inside that window (case 44
// on the debug kernel: 0.5 s before rxe reported the port down;
// ChannelTest.TheDisconnectWaitsForALinkThatIsDownWhileItsPortIsStillActive).
// The port events (target.cpp) keep following the port state.
void Channel::await_port_for_disconnect(CloseReason why) {
  constexpr u32 kPortWaitMs = 20000;
  constexpr u32 kPollMs = 100;
  if (!cm_.held() || why == CloseReason::DeviceRemoved) return;
  const u32 port = cfg_.port->port_num();
  if (srpt_k_port_link_up(cfg_.kdev, port)) return;
  srpt_log(SRPT_LOG_INFO,
           "channel %s: %s port %u is down; the disconnect waits for it (at most %u s)\n",
           sess_name_.c_str(), cfg_.port->device_name(), port, kPortWaitMs / 1000);
  const u64 start = srpt_k_now_ns();
  const u64 limit = u64{kPortWaitMs} * 1000000u;
  bool active = false;
  bool removed = false;
  while (!active && srpt_k_now_ns() - start < limit) {
    removed = !cfg_.port->attached();
    if (removed) break;
    srpt_k_sleep_ms(kPollMs);
    active = srpt_k_port_link_up(cfg_.kdev, port) != 0;
  }
  const u64 waited_ms = (srpt_k_now_ns() - start) / 1000000u;
  if (removed)
    srpt_log(SRPT_LOG_INFO, "channel %s: %s is being removed; disconnecting after %llu ms\n",
             sess_name_.c_str(), cfg_.port->device_name(),
             static_cast<unsigned long long>(waited_ms));
  else if (active)
    srpt_log(SRPT_LOG_INFO, "channel %s: port active again after %llu ms\n",
             sess_name_.c_str(), static_cast<unsigned long long>(waited_ms));
  else
    srpt_log(SRPT_LOG_WARNING,
             "channel %s: port still down after %llu ms; disconnecting anyway\n",
             sess_name_.c_str(), static_cast<unsigned long long>(waited_ms));
}

bool Channel::log_admit() {
  return cfg_.target == nullptr ||
         cfg_.target->log_limit().admit(cfg_.names.short_name.view());
}

// Fatal QP events (IBA 11.6.3.1: the QP is in the error state, or its
// path is gone) end the channel, logged with the event, as the in-tree
// driver does not; the initiator then logs in again. Other events are only
// logged: nothing the target does depends on them.
void Channel::on_qp_event(srpt_qp_event ev, const char* name) {
  switch (ev) {
    case SRPT_QP_EV_FATAL:
    case SRPT_QP_EV_REQ_ERR:
    case SRPT_QP_EV_ACCESS_ERR:
    case SRPT_QP_EV_PATH_MIG_ERR:
      srpt_log(SRPT_LOG_WARNING, "channel %s: QP event \"%s\"; closing the channel\n",
               sess_name_.c_str(), name);
      close(CloseReason::QpFatal);
      return;
    case SRPT_QP_EV_OTHER:
      break;
  }
  if (log_admit())
    srpt_log(SRPT_LOG_INFO, "channel %s: QP event \"%s\"\n", sess_name_.c_str(), name);
}

void Channel::destroy_cm() {
  cm_.destroy();
  if (cfg_.target != nullptr) cfg_.target->counters().cm_destroyed();
}

// --- CM events -------------------------------------------------------------

void Channel::on_cm_event(srpt_cm_event ev) {
  switch (ev) {
    case SRPT_CM_EV_ESTABLISHED: {
      {
        // Closing: the release work may be destroying the QP right now (an
        // IB/CM RTU still arrives after a close, as the DREQ cannot be sent
        // before it).
        SpinGuard g(lock_);
        if (state_.get() != State::Connecting) return;
      }
      if (cm_.kind() == SRPT_CM_IB && srpt_k_qp_ready(qp_) != 0) {
        close(CloseReason::CmError);
        return;
      }
      {
        SpinGuard g(lock_);
        if (!state_.establish()) return;
      }
      process_waiting();
      return;
    }
    case SRPT_CM_EV_DISCONNECT:
      close(CloseReason::PeerDisconnect);
      return;
    case SRPT_CM_EV_DREP:
    case SRPT_CM_EV_TIMEWAIT_EXIT:
      close(CloseReason::PeerDisconnect);
      return;
    case SRPT_CM_EV_REJECTED:
    case SRPT_CM_EV_ERROR:
      close(CloseReason::CmError);
      return;
    case SRPT_CM_EV_DEVICE_REMOVAL:
      close(CloseReason::DeviceRemoved);
      return;
  }
}

}  // namespace srpt
