// SPDX-License-Identifier: GPL-2.0
// RequestFifo: the request IUs a channel holds, in arrival order, and the
// SRP credits they stand for.
//
// Credit rules (SRP r16a 5.4, and how this target keeps them):
// - A channel grants `credits` (the login's REQ_LIM_DELTA) and holds at most
//   that many request IU buffers: those waiting here (deferred before RTU, or
//   waiting for a command slot) plus those of its commands. admit() refuses
//   one more: only an SRQ can deliver it, and then the initiator ignored its
//   credits (the channel closes, CreditsExceeded).
// - Every request but SRP_CRED_RSP/SRP_AER_RSP spends one of the
//   initiator's credits (spend()).
// - A credit comes back in a response, and only once the request's IU
//   buffer is receivable again: release_buffer() first, then grant().
//   A grant is 1 (the request answered) plus every credit owed.
// - A request that gets no response (an unknown opcode, a command the
//   target core aborted) owes its credit (owe()); the next response
//   carries it.
// - Every IU goes through the FIFO, so none overtakes one that waits.
//
// Not synchronised: the owner guards it with its lock (Channel::lock_,
// SRPT_GUARDED_BY). Allocated once, in process context (create()).
#pragma once

#include <srpt/rt/status.h>
#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

namespace srpt {

class RequestFifo : NonCopyable {
 public:
  struct Iu {
    u32 index;  // receive buffer
    u32 len;
  };

  static Result<RequestFifo> create(u32 credits);
  RequestFifo(RequestFifo&& o)
      : ius_(exchange(o.ius_, nullptr)), credits_(o.credits_), head_(o.head_),
        count_(o.count_), held_(o.held_), owed_(o.owed_), req_lim_(o.req_lim_) {}
  RequestFifo& operator=(RequestFifo&&) = delete;
  ~RequestFifo();

  u32 credits() const { return credits_; }

  // A request IU arrived. False: the channel already holds `credits`
  // buffers, the IU is not taken (see above).
  bool admit(Iu iu);
  u32 waiting() const { return count_; }
  // The oldest waiting IU; only when waiting() > 0.
  const Iu& front() const { return ius_[head_]; }
  // Removes front(); its buffer stays held (by the command it becomes, or
  // until release_buffer()).
  Iu pop();

  // A held buffer is receivable again (reposted, or back on the SRQ).
  void release_buffer();
  u32 held() const { return held_; }

  // The request front() was spent one of the initiator's credits.
  void spend();
  // A request got no response: its credit rides on the next one.
  void owe() { owed_++; }
  // The REQ_LIM_DELTA of the response being built: this request's credit
  // plus every one owed.
  u32 grant();
  // Credits the initiator holds, as we account them (the channel file).
  u32 req_lim() const { return req_lim_; }

 private:
  RequestFifo(Iu* ius, u32 credits) : ius_(ius), credits_(credits), req_lim_(credits) {}

  Iu* ius_;       // `credits` entries, a ring from head_
  u32 credits_;
  u32 head_ = 0;
  u32 count_ = 0;
  u32 held_ = 0;  // count_ <= held_ <= credits_
  u32 owed_ = 0;
  u32 req_lim_;
};

}  // namespace srpt
