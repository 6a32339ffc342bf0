// SPDX-License-Identifier: GPL-2.0
// ChannelState (include/srpt/core/channel_state.h): the chart of a
// channel's states. Invariant: state_ only moves forward, along the edges
// advance() lists; callers hold the owner's lock.
#include <srpt/core/channel_state.h>

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
    case CloseReason::SrqFailed: return "shared receive queue failed";
    case CloseReason::QpFatal: return "fatal QP event";
  }
  return "?";
}

bool ChannelState::advance(State to) {
  bool legal = false;
  switch (state_) {
    case State::Connecting: legal = to == State::Live || to == State::Closing; break;
    case State::Live: legal = to == State::Closing; break;
    case State::Closing: legal = to == State::Released; break;
    case State::Released: legal = false; break;
  }
  if (legal) state_ = to;
  return legal;
}

bool ChannelState::establish() { return advance(State::Live); }

ChannelState::CloseStep ChannelState::close(CloseReason why) {
  if (!advance(State::Closing)) return CloseStep::None;
  reason_ = why;
  return armed_ ? CloseStep::QueueRelease : CloseStep::LoginAborts;
}

bool ChannelState::arm() {
  if (SRPT_CHECK_FAILED(!armed_)) return false;
  armed_ = true;
  return closing();
}

bool ChannelState::released() {
  return !SRPT_CHECK_FAILED(advance(State::Released));
}

}  // namespace srpt
