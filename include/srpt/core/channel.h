// SPDX-License-Identifier: GPL-2.0
// Channel: one SRP RDMA channel (an RC connection), from the login that
// made it to its release.
//
// States only move forward (ChannelState, channel_state.h): Connecting until
// the RTU, Live, Closing once close() was called, Released when the release
// work is done.
//
// Ownership and lifetime:
// - The channel owns its cm_id from adoption (see cm_id.h) and destroys it
//   exactly once, in the release work. The release work is the only path
//   that frees a channel's resources, whatever closed it: DREQ, disconnect,
//   time-wait exit, REJ after REP, RTU timeout, SRP_I_LOGOUT, TPG disable,
//   ACL removal, device removal or module unload.
// - A channel is reference counted: the Target's registry holds one
//   reference from registration until the release work unlinks it; the
//   release work holds one while queued; anyone waiting for release holds
//   one. Completion and CM callbacks carry a raw pointer; they cannot run
//   after the release work destroyed the QP (drains completions), removed the
//   session (no more target-core callbacks) and destroyed the cm_id (waits
//   for its callbacks).
// - close() never sleeps and may be called from any context (the target
//   core calls close_session under a spinlock); everything that sleeps is
//   in the release work. While the login that made the channel still runs,
//   close() queues nothing (see arm()): the release work must not tear the
//   channel down under the login.
//
// Locking: lock_ (a spinlock, class SRPT_LOCK_CHANNEL) is the channel's one
// lock. It guards the small types the channel is made of, each declared
// SRPT_GUARDED_BY(lock_) below, so clang's thread-safety analysis rejects
// any use of them without it:
//   state_   ChannelState   its state chart, close reason, armed (channel_state.h)
//   ius_     RequestFifo    request IUs not yet dispatched, and the credits
//                           (request_fifo.h)
//   slots_   SlotPool       the command slots (slot_pool.h)
//   sq_      SendBudget     send-queue room and who waits for it (send_budget.h)
//   resuming_                whether a loop hands that room to the waiters
//   ext_tables_, split_, aborted_   counters for log lines
// Nothing that sleeps or calls out of the module runs under it. gate_
// (dispatch_gate.h) has its own spinlock, never taken under lock_ nor the
// other way round: every dispatch runs inside it, and the release work
// closes it and waits before the session and the QP go.
//
// The methods are defined by concern, each file stating what it relies on:
//   channel.cpp       create, accept, arm, close, release, CM events
//   channel_recv.cpp  receive completions, the FIFO, dispatch, reposting
//   channel_cmd.cpp   SRP_CMD and SRP_TSK_MGMT: parse, submit, refuse, answer,
//                     send completions and the end of a command
//   channel_rdma.cpp  send-queue room, descriptor table reads, data-out
//                     reads and data-in writes
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/abi/cmd.h>
#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>
#include <srpt/core/channel_state.h>
#include <srpt/core/cm_id.h>
#include <srpt/core/cmd_context_cache.h>
#include <srpt/core/command.h>
#include <srpt/core/dispatch_gate.h>
#include <srpt/core/initiator_name.h>
#include <srpt/core/login_policy.h>
#include <srpt/core/port.h>
#include <srpt/core/recv_ring_cache.h>
#include <srpt/core/request_fifo.h>
#include <srpt/core/send_budget.h>
#include <srpt/core/send_queue.h>
#include <srpt/core/slot_pool.h>
#include <srpt/core/srp_wire.h>
#include <srpt/core/srq.h>
#include <srpt/rt/list.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/refptr.h>

namespace srpt {

class Target;
class Tpg;

class Channel : public RefCounted<Channel> {
 public:
  using State = ChannelState::State;

  struct Config {
    Target* target;
    srpt_k_device* kdev;
    RefPtr<Port> port;
    srpt_cm_kind kind;
    u16 pkey;           // IB/CM: the P_Key of the login, for the QP
    LoginGrant grant;
    u32 slots;          // command slots = send ring size
    u32 sq_size;        // srp_sq_size: caps the send-queue depth
    u32 send_buf_size;  // one response IU
    u8 i_port_id[16];
    u8 t_port_id[16];
    SessionNames names;
    // Non-null: request IUs come from the device's SRQ, not an own ring.
    RefPtr<SharedRecvQueue> srq;
    // Where the own receive ring and the command contexts come from and go
    // back to: the device's caches, which outlive the channel
    // (recv_ring_cache.h, cmd_context_cache.h).
    RecvRingCache* rings;
    CmdContextCache* cmd_contexts;
    u32 max_cqe;  // the device's largest completion queue
  };

  // Builds every resource but the session (step named in *failed_step on
  // error). `cm` is the lent cm_id: RDMA/CM QPs are created on it.
  static Result<RefPtr<Channel>> create(const Config& cfg, srpt_k_cm* cm,
                                        const char** failed_step);
  ~Channel();

  // Login, before adoption: the session, then the receive IUs.
  void set_session(srpt_k_session* sess, Tpg* tpg, const InitiatorName& name);
  Status post_receives();
  // Login failed before adoption: tears down synchronously (process context,
  // inside the REQ callback: no cm_id involved).
  void abort_login();
  // Login, after adoption: the channel owns `id` from here on.
  Status accept(OwnedCmId id, const srp::LoginRsp& rsp);
  // Login, last step, after the accept whatever its outcome: from here on
  // close() queues the release work. Until then close() (the target core
  // closing the session, a receive flushed) only marks the channel Closing:
  // the login sees that before it registers the channel and aborts it
  // itself; after that, arm() queues the release work.
  void arm();

  void close(CloseReason why);
  // Only for armed channels (the registry's: every registered channel is
  // armed once the login that registered it returns).
  void close_and_wait(CloseReason why);

  // Callbacks.
  void on_cm_event(srpt_cm_event ev);
  void on_recv(u32 index, u32 len, bool ok);
  void on_send(u32 index, bool ok);
  // An asynchronous QP event (abi/queue.h); any context.
  void on_qp_event(srpt_qp_event ev, const char* name);
  int on_write_pending(Command& c);
  // wc_status: the ib_wc_status of the reads' completion (SRPT_WC_SUCCESS).
  void on_rdma_done(Command& c, int wc_status);
  void on_fetch_done(Command& c, bool ok);
  int on_queue_data_in(Command& c);
  int on_queue_status(Command& c);
  void on_queue_tm_rsp(Command& c);
  void on_aborted(Command& c);
  void on_release(Command& c);

  // Read-mostly identity.
  // The I_T nexus: initiator port id, target port id, RDMA port.
  bool is_nexus(const Port& port, const u8 (&i_port_id)[16],
                const u8 (&t_port_id)[16]) const;
  bool same_nexus(const Channel& o) const;
  // Logged in under the same session name (ACL) of the same TPG.
  bool same_session(const Channel& o) const {
    return tpg_ == o.tpg_ && sess_name_.view() == o.sess_name_.view();
  }
  Port& port() const { return *cfg_.port; }
  Tpg* tpg() const { return tpg_; }
  srpt_cm_kind kind() const { return cfg_.kind; }
  State state();
  const char* session_name() const { return sess_name_.c_str(); }
  const SessionNames& names() const { return cfg_.names; }

  struct Snapshot {
    State state;
    u32 req_lim;
    u32 busy_slots;
    u32 waiting;
  };
  Snapshot snapshot();
  // When Target::commit registered the channel, its login time: set and
  // read under the target's lock_ only (a reader that takes the time under
  // it never finds a channel younger than that time).
  void set_login_time_ns(u64 ns) { login_ns_ = ns; }
  u64 login_time_ns() const { return login_ns_; }
  // Numbered by Target::commit in login order (under the same lock_): the
  // channel's connection id in an ACL's info file.
  void set_login_serial(u64 n) { login_serial_ = n; }
  u64 login_serial() const { return login_serial_; }
  const LoginGrant& grant() const { return cfg_.grant; }
  u32 slots() const { return cfg_.slots; }
  // Made on an SRQ. From the fixed identity, not srq_: the release work
  // drops that without a lock while the channel is still listed (and shown).
  bool uses_srq() const { return srq_identity_ != nullptr; }
  // The SRQ the channel was made on (null without), for telling which
  // channels a failed SRQ concerns; fixed for the channel's life, unlike
  // the reference its release work drops. Never dereferenced.
  const SharedRecvQueue* srq_identity() const { return srq_identity_; }

  // On the Target's channel list (under the Target's lock).
  ListNode target_node;

 private:
  // Whether a line the initiator can provoke at will may be logged now: its
  // budget in the Target's LogLimiter, under the key of its login's lines.
  bool log_admit();
  // A command whose `segs` remote segments the shim can never map on this
  // QP (-ENOSPC from srpt_k_cmd_rdma_prepare), rate-limited.
  void log_too_many_registrations(u32 segs);
  friend class RefPtr<Channel>;
  Channel(const Config& cfg, SpinLock lock, DispatchGate gate, RequestFifo ius);

  // channel.cpp: the lifetime.
  static void release_work_fn(void* arg);
  void release();
  // Before the release's DREQ: waits (bounded) while the port is down.
  void await_port_for_disconnect(CloseReason why);
  void destroy_cm();
  void destroy_resources();
  static RecvRingCache::Geometry recv_ring_geometry(const Config& cfg);
  // SRQ: the IUs still pending go back to the SRQ (release, abort).
  void return_pending_to_srq();
  // Drops the SRQ reference (after the QP is gone and every buffer is back).
  void drop_srq();

  // channel_recv.cpp: request IUs in.
  void process_waiting();
  // Acts on one request IU taken off the FIFO; only inside gate_.
  void dispatch(u32 index, u32 len, Command* slot);
  // The request IU buffer `index` is receivable again: posted on the
  // channel's own receive queue, or given back to the SRQ.
  void repost(u32 index);
  // A buffer counted as held (RequestFifo) is receivable again (repost).
  void give_back(u32 index);
  u8* recv_buf(u32 index) {
    return srq_ != nullptr ? srq_->buf(index) : srpt_k_ring_buf(recv_ring_, index);
  }
  // Receive indexes: the SRQ's buffers, or the own ring's.
  u32 recv_index_range() const;

  // channel_cmd.cpp: commands and task management.
  void handle_cmd(Command& c, u32 index, u32 len);
  void submit_fetched(Command& c);
  void refuse(Command& c, const srp::Tag& tag, CmdRefusal why);
  void submit(Command& c);
  void handle_tsk_mgmt(Command& c, u32 index, u32 len);
  void answer_tsk_mgmt(Command& c, u8 rsp_code);
  // Builds and posts the response (data_in: behind the prepared data-in
  // writes, in parts if need be), or queues it until the send queue has
  // room.
  void send_response(Command& c, RspFields f, bool data_in = false);
  void post_rsp(Command& c);
  void finish(Command& c);

  // channel_rdma.cpp: the send queue and RDMA.
  // Send-queue room (SendBudget). sq_reserve: true when `need` work
  // requests are the command's now; false when it was queued to post
  // `what` later, from sq_resume(), in arrival order.
  bool sq_reserve(Command& c, u32 need, Command::SqPost what);
  // The chain the command posted completed: its room comes back.
  void sq_return(Command& c);
  void sq_resume();
  void post_fetch(Command& c);
  int post_read(Command& c, bool deferred);
  void post_write(Command& c);
  // RDMA in parts (channel_rdma.cpp): after a prepare, records the
  // contexts; the work requests of the largest one.
  u32 rdma_prepared(Command& c);
  // Drops the prepared contexts (none outstanding) and forgets them.
  void rdma_unprepare(Command& c);
  // The next part: as many contexts from rw_next on as fit in `room` work
  // requests together (part_ctxs, at least one, as every context fits the
  // queue); returns their work requests.
  u32 next_part(Command& c, u32 room);
  // The work requests of the contexts not yet posted.
  u32 wrs_left(const Command& c) const;
  // Data-in: the next part of the writes, or the last ones with the
  // response, when the room for them is free.
  void continue_data_in(Command& c);
  void on_write_done(Command& c, int wc_status);
  void log_context_too_long(u32 wrs);
  // A transfer of `wrs` work requests goes in parts: counted, the first
  // one logged.
  void note_split(u32 wrs);
  // The slot's descriptor-table buffer as a segment store of kMaxRdmaSegs,
  // made on first use (it may sleep: a dispatch, in process context, no lock
  // held); nullptr when it cannot be made.
  srpt_rdma_seg* table_store(Command& c);
  // A command the channel cannot take now: SCSI BUSY, which the initiator
  // retries.
  void answer_busy(Command& c, const srp::Tag& tag, const char* why);

  Config cfg_;
  SpinLock lock_;
  // Dispatches (process_waiting, on_fetch_done) run inside it; the release
  // work closes it and waits before the session and the QP go.
  DispatchGate gate_;
  OwnedCmId cm_;
  srpt_k_qp* qp_ = nullptr;
  srpt_k_ring* recv_ring_ = nullptr;   // null on an SRQ
  SharedRecvQueue* srq_ = nullptr;      // cfg_.srq while held, see drop_srq()
  const SharedRecvQueue* srq_identity_ = nullptr;  // cfg_.srq at construction
  srpt_k_ring* send_ring_ = nullptr;
  Command** cmds_ = nullptr;  // cfg_.slots entries
  // The slots' contexts; each Command's kcmd points into it.
  Own<CmdContextSet> kcmds_;
  srpt_k_session* sess_ = nullptr;
  Tpg* tpg_ = nullptr;
  InitiatorName sess_name_;
  srpt_k_work* release_work_ = nullptr;
  srpt_k_completion* released_ = nullptr;
  ChannelIuLimits iu_limits_{};
  u64 login_ns_ = 0;
  u64 login_serial_ = 0;

  // Immutable after create(): the send queue's depth.
  u32 sq_depth_ = 0;

  // Guarded by lock_ (see the header comment).
  ChannelState state_ SRPT_GUARDED_BY(lock_);
  RequestFifo ius_ SRPT_GUARDED_BY(lock_);
  SlotPool<Command, &Command::free_node> slots_ SRPT_GUARDED_BY(lock_);
  SendBudget sq_ SRPT_GUARDED_BY(lock_);
  // A sq_resume() loop is running (channel_rdma.cpp).
  bool resuming_ SRPT_GUARDED_BY(lock_) = false;
  // External descriptor tables fetched (logged at release).
  u32 ext_tables_ SRPT_GUARDED_BY(lock_) = 0;
  // Transfers longer than the send queue, posted in parts (logged at
  // release).
  u32 split_ SRPT_GUARDED_BY(lock_) = 0;
  // Commands the target core aborted since the last task management answer
  // (for its log line).
  u32 aborted_ SRPT_GUARDED_BY(lock_) = 0;
};

}  // namespace srpt
