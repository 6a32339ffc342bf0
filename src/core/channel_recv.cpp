// SPDX-License-Identifier: GPL-2.0
// Channel, request IUs in (channel.h): receive completions, the FIFO of
// request IUs and its credits (RequestFifo), dispatch, reposting.
//
// Relies on:
// - Every request IU goes through ius_, so none overtakes one that waits
//   (for the RTU, or for a command slot); the channel holds at most its
//   credits' worth of buffers (RequestFifo::admit).
// - A dispatch runs inside gate_: the release work waits for it before the
//   session and the QP go. It takes an IU off the FIFO under lock_ and acts
//   on it without lock_.
// - A buffer of the SRQ is shared by every channel of the device: whatever
//   becomes of this channel, each one it took goes back (repost).
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

namespace srpt {

namespace {

// Requests that take a command slot (and a credit, returned in their SRP_RSP).
bool needs_slot(u8 opcode) {
  return opcode == srp::kCmd || opcode == srp::kTskMgmt;
}

}  // namespace

u32 Channel::recv_index_range() const {
  return srq_ != nullptr ? srq_->count() : cfg_.grant.req_lim_delta;
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
    if (state_.closing()) {
      // Own ring: never reposted, the QP goes away. SRQ: back below.
    } else if (ius_.admit(RequestFifo::Iu{index, len})) {
      queued = true;
    } else {
      // The channel holds as many buffers as it granted credits, waiting
      // or with its commands. Only an SRQ delivers more (an own receive
      // queue holds that many buffers): the initiator ignored its credits
      // (SrqTest.IusBeyondTheCreditsCloseALiveChannel...).
      SRPT_ASSERT(srq_ != nullptr);
      overrun = true;
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
    RequestFifo::Iu iu;
    Command* slot = nullptr;
    {
      SpinGuard g(lock_);
      if (!state_.live() || ius_.waiting() == 0) break;
      const RequestFifo::Iu& next = ius_.front();
      const u8 opcode = next.len > 0 ? recv_buf(next.index)[0] : 0xff;
      if (needs_slot(opcode)) {
        slot = slots_.take();
        // on_send() calls us again after the release its send completion
        // triggers, and so does the next arrival.
        if (slot == nullptr) break;
      }
      iu = ius_.pop();
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
    ius_.spend();
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
      // it is shared with every channel of the device
      // (SrqTest.ALogoutGivesItsBufferBack).
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
        ius_.owe();  // no response: its credit comes back with the next one
      }
      give_back(index);
      return;
    }
  }
}

void Channel::give_back(u32 index) {
  {
    SpinGuard g(lock_);
    ius_.release_buffer();
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

}  // namespace srpt
