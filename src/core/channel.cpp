// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/core/target.h>
#include <srpt/rt/assert.h>

namespace srpt {

const char* close_reason_name(CloseReason r) {
  switch (r) {
    case CloseReason::LoginFailed: return "login failed after accept";
    case CloseReason::PeerDisconnect: return "initiator disconnected";
    case CloseReason::CmError: return "connection error";
    case CloseReason::Logout: return "SRP_I_LOGOUT";
    case CloseReason::Terminated: return "replaced by a SINGLE login";
    case CloseReason::TpgDisabled: return "TPG disabled";
    case CloseReason::SessionClosed: return "session closed by the target core";
    case CloseReason::DeviceRemoved: return "RDMA device removed";
    case CloseReason::Shutdown: return "module unload";
    case CloseReason::QueueError: return "work request failed";
    case CloseReason::CreditsExceeded: return "more request IUs than credits";
    case CloseReason::SrqSwitched: return "use_srq changed";
  }
  return "?";
}

Channel::Channel(const Config& cfg, SpinLock lock, DispatchGate gate)
    : cfg_(cfg), lock_(move(lock)), gate_(move(gate)) {
  if (cfg_.target != nullptr) cfg_.target->counters().channel_made();
  iu_limits_.max_it_iu_len = cfg.grant.max_it_iu_len;
  iu_limits_.immediate = cfg.grant.immediate;
  iu_limits_.imm_data_offset = cfg.grant.imm_data_offset;
  srq_ = cfg_.srq.get();
}

Result<RefPtr<Channel>> Channel::create(const Config& cfg, srpt_k_cm* cm,
                                        const char** failed_step) {
  *failed_step = "channel";
  SpinLock lock = SRPT_TRY(SpinLock::create(SRPT_LOCK_CHANNEL));
  *failed_step = "dispatch gate";
  DispatchGate gate = SRPT_TRY(DispatchGate::create());
  *failed_step = "channel";
  RefPtr<Channel> ch = RefPtr<Channel>::adopt(
      new (alloc_sleep) Channel(cfg, move(lock), move(gate)));
  if (!ch) return Error::NoMem;
  Channel& c = *ch;
  const u32 depth = cfg.grant.req_lim_delta;

  // From here on ~Channel frees whatever was made (destroy_resources).
  *failed_step = "pending IU table";
  c.pending_ = new (alloc_sleep) PendingIu[depth];
  if (c.pending_ == nullptr) return Error::NoMem;

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
    // Immediate data is handed to the target core in place: sector-aligned.
    ret = srpt_k_ring_create(cfg.kdev, depth, cfg.grant.max_it_iu_len,
                             cfg.grant.imm_data_offset, SRPT_RING_RECV,
                             &c.recv_ring_);
    if (ret) return Error::from_kernel(ret);
  }
  *failed_step = "send ring";
  ret = srpt_k_ring_create(cfg.kdev, cfg.slots, cfg.send_buf_size, 0,
                           SRPT_RING_SEND, &c.send_ring_);
  if (ret) return Error::from_kernel(ret);

  *failed_step = "descriptor table ring";
  // Per slot: the segments of its command, and the landing buffer of an
  // external descriptor table (decoded in place).
  ret = srpt_k_ring_create(cfg.kdev, cfg.slots, kMaxTableBytes, 0,
                           SRPT_RING_RECV, &c.table_ring_);
  if (ret) return Error::from_kernel(ret);

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
  qp.ctx = &c;
  ret = srpt_k_qp_create(cfg.kind, cm, cfg.kdev, cfg.port->port_num(), &qp,
                         &c.qp_);
  if (ret) return Error::from_kernel(ret);
  c.sq_depth_ = qp.send_depth;

  for (u32 i = 0; i < cfg.slots; i++) {
    *failed_step = "command context";
    ret = srpt_k_cmd_create(c.qp_, cfg.port->port_num(), c.cmds_[i],
                            &c.cmds_[i]->kcmd);
    if (ret) return Error::from_kernel(ret);
  }

  *failed_step = "release work";
  ret = srpt_k_work_create(&Channel::release_work_fn, &c, &c.release_work_);
  if (ret) return Error::from_kernel(ret);
  *failed_step = "completion";
  ret = srpt_k_completion_create(&c.released_);
  if (ret) return Error::from_kernel(ret);

  {
    SpinGuard g(c.lock_);
    for (u32 i = 0; i < cfg.slots; i++) c.free_.push_back(*c.cmds_[i]);
    c.req_lim_ = depth;
    c.sq_avail_ = c.sq_depth_;
  }
  *failed_step = nullptr;
  return move(ch);
}

// Frees what create() made, in reverse. Runs with no completion pending:
// either the QP never had work posted, or it was drained by srpt_k_qp_destroy.
void Channel::destroy_resources() {
  if (cmds_ != nullptr) {
    for (u32 i = 0; i < cfg_.slots; i++) {
      if (cmds_[i] == nullptr) continue;
      srpt_k_cmd_destroy(cmds_[i]->kcmd);
      cmds_[i]->kcmd = nullptr;
    }
  }
  if (qp_ != nullptr) srpt_k_qp_destroy(exchange(qp_, nullptr));
  srpt_k_ring_destroy(exchange(table_ring_, nullptr));
  srpt_k_ring_destroy(exchange(send_ring_, nullptr));
  srpt_k_ring_destroy(exchange(recv_ring_, nullptr));
}

Channel::~Channel() {
  SRPT_ASSERT(!target_node.linked());
  SRPT_ASSERT(!cm_.held());
  SRPT_ASSERT(sess_ == nullptr);
  destroy_resources();
  {
    SpinGuard g(lock_);
    while (free_.pop_front() != nullptr) {
    }
    while (sq_waiting_.pop_front() != nullptr) {
    }
  }
  if (cmds_ != nullptr) {
    for (u32 i = 0; i < cfg_.slots; i++) destroy(cmds_[i]);
    destroy_array(cmds_);
  }
  destroy_array(pending_);
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
    state_ = State::Closing;
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
  state_ = State::Released;
}

u32 Channel::recv_index_range() const {
  return srq_ != nullptr ? srq_->count() : cfg_.grant.req_lim_delta;
}

void Channel::return_pending_to_srq() {
  if (srq_ == nullptr) return;
  for (;;) {
    u32 index;
    {
      SpinGuard g(lock_);
      if (pending_count_ == 0) return;
      index = pending_[pending_head_].index;
      pending_head_ = (pending_head_ + 1) % cfg_.grant.req_lim_delta;
      pending_count_--;
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
  login_ns_ = srpt_k_now_ns();
  srpt_k_cm_set_context(cm_.kind(), cm_.get(), this);
  int ret = srpt_k_cm_accept(cm_.kind(), cm_.get(), qp_, &rsp, sizeof(rsp));
  if (ret) return Error::from_kernel(ret);
  return Status::ok_status();
}

Channel::State Channel::state() {
  SpinGuard g(lock_);
  return state_;
}

Channel::Snapshot Channel::snapshot() {
  SpinGuard g(lock_);
  return Snapshot{state_, req_lim_, busy_, pending_count_};
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
    if (state_ >= State::Closing) return;
    state_ = State::Closing;
    close_reason_ = why;
    reply_disconnect_ = why == CloseReason::PeerDisconnect;
    // The login is still running: it aborts the channel itself, or queues
    // the release work from arm().
    if (!armed_) return;
  }
  // The queued work holds a reference until it has run.
  add_ref();
  srpt_k_work_queue(release_work_);
}

void Channel::arm() {
  {
    SpinGuard g(lock_);
    armed_ = true;
    if (state_ < State::Closing) return;
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
  u32 ext_tables;
  {
    SpinGuard g(lock_);
    reply = reply_disconnect_;
    why = close_reason_;
    ext_tables = ext_tables_;
  }
  srpt_log(SRPT_LOG_INFO, "channel %s (%s) closing: %s\n", sess_name_.c_str(),
           cfg_.names.port_id_0x.c_str(), close_reason_name(why));
  if (ext_tables != 0)
    srpt_log(SRPT_LOG_INFO, "channel %s: %u external descriptor tables fetched\n",
             sess_name_.c_str(), ext_tables);

  // 1. Tell the initiator and stop the queues: every posted request now
  //    completes (flushed), so commands in the target core can finish.
  if (cm_.held()) (void)srpt_k_cm_disconnect(cm_.kind(), cm_.get(), reply ? 1 : 0);
  srpt_k_qp_error(qp_);
  // Dispatches in flight post on the QP and submit to the session: both
  // stay until the last one is done (issue 13, defect 2:
  // ChannelTest.ReleaseWaitsForADispatchThatIsPosting).
  gate_.close_and_wait();
  // Commands waiting for send-queue room post now (and are flushed), so
  // that the target core sees them finish.
  sq_resume();
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
  // and no receive completion of the QP runs after srpt_k_qp_destroy().
  // The reference goes before waiters wake, so that whoever waits for this
  // channel (use_srq switch, device removal) can destroy the SRQ after.
  return_pending_to_srq();
  drop_srq();
  {
    SpinGuard g(lock_);
    state_ = State::Released;
  }
  cfg_.target->unregister_channel(*this);
  srpt_k_complete(released_);
  // The registry's reference (never the last: this work holds one), then
  // the one close() took for this work.
  const bool registry_ref_was_last = release_ref();
  SRPT_ASSERT(!registry_ref_was_last);
  if (release_ref()) destroy(this);
}

bool Channel::log_admit() {
  return cfg_.target == nullptr ||
         cfg_.target->log_limit().admit(cfg_.names.short_name.view());
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
        if (state_ != State::Connecting) return;
      }
      if (cm_.kind() == SRPT_CM_IB && srpt_k_qp_ready(qp_) != 0) {
        close(CloseReason::CmError);
        return;
      }
      {
        SpinGuard g(lock_);
        if (state_ != State::Connecting) return;
        state_ = State::Live;
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

// --- receiving requests ----------------------------------------------------

namespace {

// Requests that take a command slot (and a credit, returned in their SRP_RSP).
bool needs_slot(u8 opcode) {
  return opcode == srp::kCmd || opcode == srp::kTskMgmt;
}

srp::Tag tag_of(const u8* iu, u32 len) {
  srp::Tag t{};
  if (len >= 16)
    for (int i = 0; i < 8; i++) t.bytes[i] = iu[8 + i];
  return t;
}

// The target core's tag: the initiator's 8 opaque bytes, read as a number
// only for its logs and task-management lookups.
u64 tag_value(const srp::Tag& t) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | t.bytes[i];
  return v;
}

}  // namespace

Command* Channel::take_slot() {
  Command* c = free_.pop_front();
  if (c != nullptr) busy_++;
  return c;
}

void Channel::on_recv(u32 index, u32 len, bool ok) {
  if (SRPT_CHECK_FAILED(index < recv_index_range())) return;
  if (!ok) {
    // Flushed by a QP error (the channel is closing), or a receive error on
    // a live channel: either way the channel goes. A buffer of the SRQ is
    // shared: it goes back to the SRQ whatever becomes of this channel.
    if (srq_ != nullptr) repost(index);
    close(CloseReason::QueueError);
    return;
  }
  bool queued = false, overrun = false;
  {
    SpinGuard g(lock_);
    const u32 depth = cfg_.grant.req_lim_delta;
    if (state_ >= State::Closing) {
      // Own ring: never reposted, the QP goes away. SRQ: back below.
    } else if (held_ >= depth) {
      // The channel holds as many buffers as it granted credits, waiting
      // or with its commands. Only an SRQ delivers more (an own receive
      // queue holds depth buffers): the initiator ignored its credits
      // (issue 13, defect 5: SrqTest.IusBeyondTheCreditsCloseALiveChannel...).
      SRPT_ASSERT(srq_ != nullptr);
      overrun = true;
    } else {
      // Every request goes through the FIFO, so none overtakes another
      // that waits (for RTU, or for a command slot). pending_count_ <=
      // held_ < depth: the FIFO has room.
      pending_[(pending_head_ + pending_count_) % depth] = PendingIu{index, len};
      pending_count_++;
      held_++;
      queued = true;
    }
  }
  if (!queued) {
    // SRQ: a completion naming this QP may come after the channel began
    // to close (the device took the buffer before the QP's error state),
    // until srpt_k_qp_destroy() returns, which delivers every completion
    // of the QP first (queue.h). Until then the release work holds both
    // the channel and its SRQ reference: the buffer goes back here
    // (SrqLateRecvTest.*).
    if (srq_ != nullptr) repost(index);
    if (overrun) {
      if (log_admit())
        srpt_log(SRPT_LOG_WARNING,
                 "channel %s: request IU beyond its %u credits\n",
                 sess_name_.c_str(), cfg_.grant.req_lim_delta);
      close(CloseReason::CreditsExceeded);
    }
    return;
  }
  process_waiting();
}

void Channel::process_waiting() {
  // Inside the gate: the release work waits for this before the session
  // and the QP go. The last statement: past leave() the channel may be gone.
  if (!gate_.enter()) return;
  for (;;) {
    PendingIu iu;
    Command* slot = nullptr;
    {
      SpinGuard g(lock_);
      if (state_ != State::Live || pending_count_ == 0) break;
      iu = pending_[pending_head_];
      const u8 opcode = iu.len > 0 ? recv_buf(iu.index)[0] : 0xff;
      if (needs_slot(opcode)) {
        slot = take_slot();
        // on_send() calls us again after the release its send completion
        // triggers, and so does the next arrival.
        if (slot == nullptr) break;
      }
      pending_head_ = (pending_head_ + 1) % cfg_.grant.req_lim_delta;
      pending_count_--;
    }
    dispatch(iu.index, iu.len, slot);
  }
  gate_.leave();
}

void Channel::dispatch(u32 index, u32 len, Command* slot) {
  const u8* iu = recv_buf(index);
  const u8 opcode = len > 0 ? iu[0] : 0xff;
  if (opcode != srp::kCredRsp && opcode != srp::kAerRsp) {
    SpinGuard g(lock_);
    if (req_lim_ > 0) req_lim_--;  // the request used one of its credits
  }
  switch (opcode) {
    case srp::kCmd:
      handle_cmd(*slot, index, len);
      return;
    case srp::kTskMgmt:
      handle_tsk_mgmt(*slot, index, len);
      return;
    case srp::kILogout:
      // The initiator is done: no response, the channel goes.
      // Its buffer goes back like that of any IU without a slot: on an SRQ
      // it is shared with every channel of the device (issue 13, defect 1:
      // SrqTest.ALogoutGivesItsBufferBack).
      srpt_log(SRPT_LOG_INFO, "channel %s: SRP_I_LOGOUT\n", sess_name_.c_str());
      give_back(index);
      close(CloseReason::Logout);
      return;
    case srp::kCredRsp:
    case srp::kAerRsp:
      // Answers to requests we never send; they consume no credit.
      give_back(index);
      return;
    default: {
      if (log_admit())
        srpt_log(SRPT_LOG_WARNING,
                 "channel %s: IU with unknown opcode 0x%02x ignored\n",
                 sess_name_.c_str(), opcode);
      {
        SpinGuard g(lock_);
        pending_delta_++;  // its credit comes back with the next response
      }
      give_back(index);
      return;
    }
  }
}

void Channel::give_back(u32 index) {
  {
    SpinGuard g(lock_);
    if (!SRPT_CHECK_FAILED(held_ > 0)) held_--;
  }
  repost(index);
}

void Channel::repost(u32 index) {
  if (srq_ != nullptr) {
    // The SRQ is not in the error state when this channel's QP is: the
    // buffer is receivable again for every channel on the SRQ.
    const Status st = srq_->repost(index);
    if (!st.ok()) {
      if (log_admit())
        srpt_log(SRPT_LOG_WARNING,
                 "channel %s: SRQ buffer %u not reposted (%d)\n",
                 sess_name_.c_str(), index, st.to_kernel());
      close(CloseReason::QueueError);
    }
    return;
  }
  if (srpt_k_post_recv(qp_, recv_ring_, index) != 0) close(CloseReason::QueueError);
}

srpt_rdma_seg* Channel::seg_store(const Command& c) {
  return reinterpret_cast<srpt_rdma_seg*>(srpt_k_ring_buf(table_ring_, c.index()));
}

void Channel::handle_cmd(Command& c, u32 index, u32 len) {
  c.recv_index = index;
  c.is_tmf = false;
  const u8* iu = recv_buf(index);
  const CmdRefusal refusal =
      parse_srp_cmd(iu, len, iu_limits_, seg_store(c), &c.parsed);
  if (refusal != CmdRefusal::None) {
    refuse(c, tag_of(iu, len), refusal);
    return;
  }
  if (c.parsed.ext.len == 0) {
    submit(c);
    return;
  }
  // The rest of the descriptor table is in initiator memory: read it into
  // this slot's table buffer, then go on in on_fetch_done().
  c.state = Command::State::Fetching;
  if (sq_reserve(c, 1, Command::SqPost::Fetch)) post_fetch(c);
}

void Channel::post_fetch(Command& c) {
  const ExternalTable& t = c.parsed.ext;
  const int ret = srpt_k_cmd_fetch(c.kcmd, table_ring_, c.index(), t.va, t.rkey, t.len);
  if (ret != 0) {
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: posting a descriptor table read failed (%d)\n",
               sess_name_.c_str(), ret);
    sq_return(c);
    refuse(c, c.parsed.tag, CmdRefusal::TableFetchFailed);
  }
}

void Channel::on_fetch_done(Command& c, bool ok) {
  if (SRPT_CHECK_FAILED(c.state == Command::State::Fetching)) return;
  sq_return(c);
  // A failed read leaves the QP in the error state: the channel goes.
  if (!ok) close(CloseReason::QueueError);
  // Going on submits and posts: a dispatch, inside the gate. A closing
  // channel submits nothing more.
  bool go = gate_.enter();
  if (go && state() >= State::Closing) {
    gate_.leave();
    go = false;
  }
  if (!go) {
    // No answer can reach the initiator any more, and this may be the
    // flush that the release work's QP destruction waits for (the QP is no
    // longer ours to post on): the slot just goes back, its IU is not
    // reposted (on an SRQ it goes back to the SRQ). The command never
    // reached the target core.
    const u32 index = exchange(c.recv_index, Command::kNoRecv);
    if (srq_ != nullptr && index != Command::kNoRecv) give_back(index);
    c.state = Command::State::RspOnly;
    on_release(c);
    return;
  }
  submit_fetched(c);
  gate_.leave();
}

void Channel::submit_fetched(Command& c) {
  const CmdRefusal refusal = decode_desc_table(
      reinterpret_cast<const u8*>(seg_store(c)), &c.parsed);
  u32 fetched;
  {
    SpinGuard g(lock_);
    fetched = ++ext_tables_;
  }
  if (fetched == 1)
    srpt_log(SRPT_LOG_INFO,
             "channel %s: first external descriptor table fetched (%u descriptors)\n",
             sess_name_.c_str(), c.parsed.ext.len / 16);
  if (refusal != CmdRefusal::None) {
    refuse(c, c.parsed.tag, refusal);
    return;
  }
  submit(c);
}

void Channel::refuse(Command& c, const srp::Tag& tag, CmdRefusal why) {
  if (log_admit())
    srpt_log(SRPT_LOG_WARNING, "channel %s: SRP_CMD refused: %s\n",
             sess_name_.c_str(), cmd_refusal_name(why));
  c.state = Command::State::RspOnly;
  u8 sense[kRefusalSenseLen];
  refusal_sense(why, sense);
  RspFields f{};
  f.tag = tag;
  f.status = kScsiStatusCheckCondition;
  f.sense = sense;
  f.sense_len = sizeof(sense);
  send_response(c, f);
}

void Channel::submit(Command& c) {
  c.state = Command::State::Submitted;
  srpt_cmd_submit s{};
  s.cdb = c.parsed.cdb;
  s.cdb_len = c.parsed.cdb_len;
  s.lun = c.parsed.lun;
  s.tag = tag_value(c.parsed.tag);
  s.data_len = c.parsed.data_len;
  s.dir = c.parsed.dir;
  s.attr = c.parsed.attr;
  s.imm = c.parsed.imm;
  s.imm_len = c.parsed.imm_len;
  if (srpt_k_cmd_submit(c.kcmd, sess_, &s) == 0) return;
  // The session is stopping: the target core did not take the command and
  // holds nothing of it, so the answer is the channel's, as for a refusal
  // (issue 13, defect 6: ChannelTest.ACommandForAStoppingSessionIs...).
  if (log_admit())
    srpt_log(SRPT_LOG_INFO, "channel %s: session stopping: command answered BUSY\n",
             sess_name_.c_str());
  c.state = Command::State::RspOnly;
  RspFields f{};
  f.tag = c.parsed.tag;
  f.status = kScsiStatusBusy;
  send_response(c, f);
}

void Channel::handle_tsk_mgmt(Command& c, u32 index, u32 len) {
  c.recv_index = index;
  c.is_tmf = true;
  c.parsed = ParsedCmd{};
  const TskMgmtRefusal refusal = parse_srp_tsk_mgmt(recv_buf(index), len, &c.tmf);
  // The SRP_RSP echoes the request's tag (send_response reads parsed.tag
  // for commands; a task management response has no other field of it).
  c.parsed.tag = c.tmf.tag;
  if (refusal != TskMgmtRefusal::None) {
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: SRP_TSK_MGMT function 0x%02x refused: %s\n",
               sess_name_.c_str(), c.tmf.srp_func,
               tsk_mgmt_refusal_name(refusal));
    c.state = Command::State::RspOnly;
    answer_tsk_mgmt(c, tsk_mgmt_refusal_code(refusal));
    return;
  }
  if (log_admit())
    srpt_log(SRPT_LOG_INFO,
             "channel %s: %s lun %llu task tag 0x%llx\n",
             sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func),
             static_cast<unsigned long long>(c.tmf.lun),
             static_cast<unsigned long long>(tag_value(c.tmf.task_tag)));
  // The target core decides what each function does to the commands it
  // holds, and answers in on_queue_tm_rsp(). ABORT TASK names the command by
  // the tag the initiator gave it, which is the tag it was submitted with.
  c.state = Command::State::Submitted;
  srpt_tmf_submit s{};
  s.func = c.tmf.func;
  s.lun = c.tmf.lun;
  s.tag = tag_value(c.tmf.tag);
  s.ref_tag = tag_value(c.tmf.task_tag);
  const int ret = srpt_k_cmd_submit_tmf(c.kcmd, sess_, &s);
  if (ret != 0) {
    // Nothing reached the target core (no memory, or the session is
    // stopping because the channel closes): the slot is ours again.
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: %s not submitted (%d): answered FAILED\n",
               sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func), ret);
    c.state = Command::State::RspOnly;
    answer_tsk_mgmt(c, kTmrFailed);
  }
}

void Channel::answer_tsk_mgmt(Command& c, u8 rsp_code) {
  // Status GOOD with four bytes of response data (RSPVALID), as SRP asks of
  // every SRP_TSK_MGMT answer; the credit comes back as for any response.
  RspFields f{};
  f.tag = c.tmf.tag;
  f.status = kScsiStatusGood;
  f.has_rsp_code = true;
  f.rsp_code = rsp_code;
  send_response(c, f);
}

void Channel::on_queue_tm_rsp(Command& c) {
  if (SRPT_CHECK_FAILED(c.is_tmf && c.state == Command::State::Submitted)) return;
  const srpt_tmf_result r = srpt_k_cmd_tmf_result(c.kcmd);
  const u8 code = tsk_mgmt_rsp_code(r);
  u32 aborted;
  {
    SpinGuard g(lock_);
    aborted = exchange(aborted_, 0u);
  }
  if (log_admit())
    srpt_log(SRPT_LOG_INFO,
             "channel %s: %s lun %llu: target core answered %d, response code 0x%02x; "
             "%u commands aborted\n",
             sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func),
             static_cast<unsigned long long>(c.tmf.lun), static_cast<int>(r),
             code, aborted);
  answer_tsk_mgmt(c, code);
}

void Channel::on_aborted(Command& c) {
  // The "aborted" path of command.h: release_cmd follows; nothing was sent
  // and nothing may be. Only a command the target core holds is aborted.
  SRPT_ASSERT(c.state == Command::State::Submitted);
  // Counted, not logged one by one: a LUN reset aborts up to a queue's
  // worth at once. The next task management answer logs the count.
  SpinGuard g(lock_);
  aborted_++;
}

// --- responses ---------------------------------------------------------------

void Channel::send_response(Command& c, RspFields f, u32 rdma_wrs) {
  {
    SpinGuard g(lock_);
    f.req_lim_delta = 1 + exchange(pending_delta_, 0u);
    req_lim_ += f.req_lim_delta;
  }
  // The credit goes back only once the request's IU is receivable again.
  if (c.recv_index != Command::kNoRecv) give_back(exchange(c.recv_index, Command::kNoRecv));
  c.rsp_len = build_srp_rsp(srpt_k_ring_buf(send_ring_, c.index()),
                            cfg_.send_buf_size, f);
  // The response, behind the data-in writes prepared for it.
  if (sq_reserve(c, 1 + rdma_wrs, Command::SqPost::Rsp)) post_rsp(c);
}

void Channel::post_rsp(Command& c) {
  const int ret = c.state == Command::State::RspOnly
                      ? srpt_k_post_send(qp_, send_ring_, c.index(), c.rsp_len)
                      : srpt_k_cmd_send_rsp(c.kcmd, send_ring_, c.index(), c.rsp_len);
  if (ret != 0) {
    // No completion will come for it: the command ends here.
    sq_return(c);
    close(CloseReason::QueueError);
    finish(c);
  }
}

// --- send-queue room ---------------------------------------------------------

bool Channel::sq_reserve(Command& c, u32 need, Command::SqPost what) {
  SpinGuard g(lock_);
  c.sq_need = 0;
  // A closing channel's QP is in the error state: posts are flushed (or
  // fail), nothing is counted any more.
  if (state_ >= State::Closing && sq_waiting_.empty()) return true;
  if (sq_waiting_.empty() && sq_avail_ >= need) {
    sq_avail_ -= need;
    c.sq_held += need;
    return true;
  }
  c.sq_need = need;
  c.sq_post = what;
  sq_waiting_.push_back(c);
  return false;
}

void Channel::sq_return(Command& c) {
  {
    SpinGuard g(lock_);
    sq_avail_ += exchange(c.sq_held, 0u);
  }
  sq_resume();
}

void Channel::sq_resume() {
  for (;;) {
    Command* c;
    Command::SqPost what;
    {
      SpinGuard g(lock_);
      c = sq_waiting_.front();
      if (c == nullptr) return;
      const bool closing = state_ >= State::Closing;
      if (!closing && c->sq_need > sq_avail_) return;
      sq_waiting_.pop_front();
      if (!closing) {
        sq_avail_ -= c->sq_need;
        c->sq_held += c->sq_need;
      }
      c->sq_need = 0;
      what = exchange(c->sq_post, Command::SqPost::None);
    }
    switch (what) {
      case Command::SqPost::Fetch: post_fetch(*c); break;
      case Command::SqPost::Read: (void)post_read(*c, true); break;
      case Command::SqPost::Rsp: post_rsp(*c); break;
      case Command::SqPost::None: SRPT_CHECK_FAILED(false); break;
    }
  }
}

void Channel::finish(Command& c) {
  if (c.state == Command::State::RspOnly) {
    on_release(c);
    return;
  }
  // Drops the target core's reference; release_cmd (on_release) follows.
  srpt_k_cmd_free(c.kcmd);
}

void Channel::on_send(u32 index, bool ok) {
  if (SRPT_CHECK_FAILED(index < cfg_.slots)) return;
  if (!ok) close(CloseReason::QueueError);  // no-op when already closing
  Command& c = *cmds_[index];
  {
    // Its response and the writes in front of it are done.
    SpinGuard g(lock_);
    sq_avail_ += exchange(c.sq_held, 0u);
  }
  finish(c);
  sq_resume();
  process_waiting();
}

void Channel::on_release(Command& c) {
  if (c.recv_index != Command::kNoRecv) {
    // Released without a response (aborted): its IU still goes back.
    give_back(exchange(c.recv_index, Command::kNoRecv));
    SpinGuard g(lock_);
    pending_delta_++;
  }
  SpinGuard g(lock_);
  c.state = Command::State::Free;
  free_.push_back(c);
  busy_--;
}

// --- data transfer -------------------------------------------------------------

namespace {

// Cuts the remote segments down, in place, to those covering the first
// `limit` bytes: the target core may move less than the descriptors offer
// (the CDB asked for less). Idempotent, so a retried callback (queue full)
// clips again to the same result.
u32 clip_segs(ParsedCmd& p, u32 limit) {
  u32 n = 0;
  for (u32 i = 0; i < p.nsegs && limit > 0; i++) {
    srpt_rdma_seg s = p.segs[i];
    if (s.len > limit) s.len = limit;
    limit -= s.len;
    if (s.len > 0) p.segs[n++] = s;
  }
  p.nsegs = n;
  return n;
}

RspFields fields_of(const Command& c, const srpt_cmd_result& r) {
  RspFields f{};
  f.tag = c.parsed.tag;
  f.status = r.status;
  f.dir = c.parsed.dir;
  f.underflow = r.underflow != 0;
  f.overflow = r.overflow != 0;
  f.residual = r.residual;
  f.sense = r.sense;
  f.sense_len = built_sense_len(r.sense, r.sense_len);
  return f;
}

}  // namespace

int Channel::on_write_pending(Command& c) {
  if (c.parsed.imm != nullptr) {
    // The data came with the request.
    srpt_k_cmd_execute(c.kcmd);
    return 0;
  }
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  const u32 n = clip_segs(c.parsed, r.data_len);
  const int wrs = srpt_k_cmd_rdma_prepare(c.kcmd, SRPT_DIR_WRITE, c.parsed.segs, n);
  if (wrs < 0) return wrs;  // the target core retries (queue full) or fails it
  // The reads now and the response later must each fit the send queue;
  // a command needing more could never be posted: the target core fails it.
  if (static_cast<u32>(wrs) > sq_depth_) {
    srpt_k_cmd_rdma_unprepare(c.kcmd);
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: command needs %d send work requests, queue holds %u\n",
               sess_name_.c_str(), wrs, sq_depth_);
    return -SRPT_EINVAL;
  }
  if (!sq_reserve(c, static_cast<u32>(wrs), Command::SqPost::Read)) return 0;
  return post_read(c, false);
}

// Posts the prepared data-out reads (room reserved). From write_pending an
// error goes back to the target core; once deferred, the command fails.
int Channel::post_read(Command& c, bool deferred) {
  const int ret = srpt_k_cmd_rdma_read(c.kcmd);
  if (ret == 0) return 0;
  sq_return(c);
  if (!deferred) return ret;
  close(CloseReason::QueueError);
  srpt_k_cmd_fail(c.kcmd);
  return 0;
}

void Channel::on_rdma_done(Command& c, bool ok) {
  sq_return(c);
  if (ok)
    srpt_k_cmd_execute(c.kcmd);
  else
    srpt_k_cmd_fail(c.kcmd);
}

int Channel::on_queue_data_in(Command& c) {
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  const u32 n = clip_segs(c.parsed, r.data_len);
  u32 writes = 0;
  if (n > 0) {
    const int wrs = srpt_k_cmd_rdma_prepare(c.kcmd, SRPT_DIR_READ, c.parsed.segs, n);
    if (wrs < 0) return wrs;  // queue full: the target core calls us again
    writes = static_cast<u32>(wrs);
  }
  if (writes + 1 > sq_depth_) {
    // It could never be posted: CHECK CONDITION without the data.
    srpt_k_cmd_rdma_unprepare(c.kcmd);
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: command needs %u send work requests, queue holds %u\n",
               sess_name_.c_str(), writes + 1, sq_depth_);
    u8 sense[kRefusalSenseLen];
    refusal_sense(CmdRefusal::TableFetchFailed, sense);  // ABORTED COMMAND
    RspFields f = fields_of(c, r);
    f.status = kScsiStatusCheckCondition;
    f.sense = sense;
    f.sense_len = sizeof(sense);
    send_response(c, f);
    return 0;
  }
  send_response(c, fields_of(c, r), writes);
  return 0;
}

int Channel::on_queue_status(Command& c) {
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  send_response(c, fields_of(c, r));
  return 0;
}

}  // namespace srpt
