// SPDX-License-Identifier: GPL-2.0
// ChannelState: where a channel is in its life, why it closed, and whether
// its release work may be queued. Every transition of a channel is a method
// here; none goes backwards.
//
//   Connecting --establish()--> Live
//   Connecting, Live --close()--> Closing --released()--> Released
//
// Connecting  accepted (REP sent / rdma_accept), waiting for RTU/ESTABLISHED;
//             request IUs that arrive meanwhile are deferred
// Live        requests are served
// Closing     close() was called for some reason; the release work runs (or
//             the login aborts the channel itself, see arm())
// Released    every resource is gone; waiters are woken
//
// The first close() wins: later ones change nothing, so the reason logged
// at release is the first one. A transition that is not on the chart is
// refused (returns false, the state stays); released() out of order is a
// reported bug (ChannelStateTest).
//
// Not synchronised: the owner guards it with its lock (Channel::lock_,
// SRPT_GUARDED_BY). Nothing here sleeps or calls out.
#pragma once

#include <srpt/rt/types.h>

namespace srpt {

enum class CloseReason : u8 {
  LoginFailed,     // accept failed after the channel took the cm_id
  PeerDisconnect,  // DREQ / RDMA/CM DISCONNECTED
  CmError,         // REJ after REP, RTU timeout, unreachable
  Logout,          // SRP_I_LOGOUT
  Terminated,      // a SINGLE login of the same I_T nexus replaced it
  TpgDisabled,
  SessionClosed,   // the target core closed the session (ACL removed)
  DeviceRemoved,
  Shutdown,        // module unload
  QueueError,      // a work request failed on a live channel
  CreditsExceeded, // more request IUs than credits (only possible on an SRQ)
  SrqSwitched,     // use_srq of its port was changed
  SrqFailed,       // its SRQ reported an error
  QpFatal,         // a fatal asynchronous QP event
};
const char* close_reason_name(CloseReason r);

class ChannelState {
 public:
  enum class State : u8 { Connecting, Live, Closing, Released };

  State get() const { return state_; }
  bool live() const { return state_ == State::Live; }
  // Closing or Released: nothing new starts on the channel.
  bool closing() const { return state_ >= State::Closing; }

  // RTU / ESTABLISHED: Connecting -> Live. False from any other state (a
  // second RTU, or one that arrives after a close).
  bool establish();

  // What the caller of close() does next.
  enum class CloseStep : u8 {
    None,          // closed already: the first close decided
    LoginAborts,   // not armed: the login still running sees Closing
    QueueRelease,  // armed: queue the release work (once per channel)
  };
  // -> Closing, recording why (the first close only).
  CloseStep close(CloseReason why);

  // The login that made the channel is done with it. True: it closed in
  // the meantime, and the release work must be queued now (close() did
  // not). Once only.
  bool arm();

  // The release (or the login's abort) freed everything: Closing ->
  // Released. False, with a bug report, from any other state.
  bool released();

  CloseReason reason() const { return reason_; }
  // The initiator disconnected first: answer its DREQ (DREP).
  bool reply_disconnect() const { return reason_ == CloseReason::PeerDisconnect; }

 private:
  // The one place a state changes: forward along the chart only.
  bool advance(State to);

  State state_ = State::Connecting;
  bool armed_ = false;
  CloseReason reason_ = CloseReason::Shutdown;
};

}  // namespace srpt
