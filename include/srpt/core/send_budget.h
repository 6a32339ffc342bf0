// SPDX-License-Identifier: GPL-2.0
// SendBudget: the room on a channel's send queue, and the commands waiting
// for it, in arrival order. SqClaim: one command's share of it.
//
// Rules:
// - A command posts one chain at a time (a descriptor table read, a part
//   of its data-out reads or data-in writes, or its response with the
//   last data-in writes in front), and only after reserving every work
//   request of it: the send queue never overflows.
// - Room is granted first come, first served: while any command waits, a
//   new reserve() waits behind it even if its own chain would fit, so a
//   large chain is not starved by small ones (SendBudgetTest).
// - The room a chain holds comes back when its last completion arrives
//   (give_back()); then the waiters it lets through are taken, in order,
//   by next().
// - The same holds in every state of the channel and its QP. A closing
//   channel's QP is live until the release work moves it to the error
//   state, and a QP in the error state refuses a post beyond its depth as
//   a live one does (and needs a free entry for the drain request): what
//   is posted completes, flushed, and gives its room back like any
//   completion.
//
// Not synchronised: the owner guards the budget and the SqClaims of its
// commands with its lock (Channel::lock_, SRPT_GUARDED_BY on the budget).
#pragma once

#include <srpt/rt/list.h>
#include <srpt/rt/types.h>

namespace srpt {

struct SqClaim {
  // What a command waiting for room posts once it has it.
  enum class SqPost : u8 { None, Fetch, Read, Write, Rsp };

  // The work requests of the chain this command has posted.
  u32 sq_held = 0;
  // While waiting: what it will post, and how many work requests that takes.
  u32 sq_need = 0;
  SqPost sq_post = SqPost::None;
  ListNode sq_node;  // on the budget's wait list
};

class SendBudget : NonCopyable {
 public:
  SendBudget() = default;
  ~SendBudget() { forget_waiters(); }

  // The send queue holds `depth` work requests, none posted yet.
  void reset(u32 depth) { avail_ = depth; }

  // True: `need` work requests are `c`'s now (post at once). False: `c`
  // waits, and posts `what` when next() hands it out.
  bool reserve(SqClaim& c, u32 need, SqClaim::SqPost what);
  // The chain `c` posted completed (or was never posted): its room is free.
  void give_back(SqClaim& c);
  // The oldest waiter, with its room reserved, taken off the wait list;
  // nullptr while none waits or the oldest does not fit yet. *what: what
  // it posts.
  SqClaim* next(SqClaim::SqPost* what);

  u32 avail() const { return avail_; }
  bool anyone_waiting() const { return !waiting_.empty(); }
  // The channel's teardown: no command will post any more.
  void forget_waiters();

 private:
  u32 avail_ = 0;  // work requests no chain holds
  List<SqClaim, &SqClaim::sq_node> waiting_;
};

}  // namespace srpt
