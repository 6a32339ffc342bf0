// SPDX-License-Identifier: GPL-2.0
// DispatchGate: who may act on a channel's request IUs, and the release
// work's wait for them.
//
// A dispatch takes request IUs off the channel's FIFO and acts on them
// without the channel's lock: it submits commands to the session and posts
// responses on the QP. The release work destroys both, so it first closes
// the gate and waits until no dispatch is inside. Every path that
// dispatches (the receive completion, the send completion, the
// ESTABLISHED callback, a fetched descriptor table) does so between a
// successful enter() and its leave(); close_and_wait() refuses new entries
// and returns when the last one has left
// (ChannelTest.ReleaseWaitsForADispatchThatIsPosting, DispatchGateTest).
//
// After leave() counts the last dispatch out of a closed gate, the release
// work may free the channel, and the gate with it: leave() touches nothing
// of the gate after that lock section but the completion it signals, and
// the release work cannot return from waiting on that completion before
// it is signalled.
#pragma once

#include <srpt/abi/session.h>
#include <srpt/rt/lock.h>
#include <srpt/rt/status.h>

namespace srpt {

class DispatchGate : NonCopyable {
 public:
  static Result<DispatchGate> create();
  DispatchGate(DispatchGate&& o)
      : lock_(move(o.lock_)), idle_(exchange(o.idle_, nullptr)) {}
  ~DispatchGate();

  // True: the caller is inside and must leave(). False: the gate is closed
  // (the channel is being released); nothing may be dispatched.
  bool enter();
  void leave();
  // The release work, once, in process context: no dispatch enters from
  // now on, and none is inside when this returns.
  void close_and_wait();
  u32 inside();

 private:
  DispatchGate(SpinLock lock, srpt_k_completion* idle)
      : lock_(move(lock)), idle_(idle) {}

  SpinLock lock_;
  srpt_k_completion* idle_;  // signalled when the last one leaves a closed gate
  u32 inside_ SRPT_GUARDED_BY(lock_) = 0;
  bool closed_ SRPT_GUARDED_BY(lock_) = false;
};

}  // namespace srpt
