// SPDX-License-Identifier: GPL-2.0
// What one login carries from step to step (Target::login, login.cpp).
//
// The steps, in order: parse, find the port and take its login lock, view
// the port, check the request and the port's limits, admit (ask the ACLs),
// build the channel, attach the session, commit, answer. The table at the
// top of login.cpp lists the refusals each step makes.
//
// Acquired in that order, unwound in exact reverse: a refusal returns out of
// the step chain (SRPT_LOGIN_TRY), and the unregistered channel
// (PendingChannel) aborts as it goes out of scope, before the reject is sent
// and the port's login lock is dropped.
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/core/channel.h>
#include <srpt/core/initiator_name.h>
#include <srpt/core/login_policy.h>
#include <srpt/core/login_request.h>
#include <srpt/core/srq.h>
#include <srpt/rt/refptr.h>
#include <srpt/rt/utility.h>

namespace srpt {

// One connection request, parsed: what every step reads.
struct LoginAttempt {
  const srpt_login_event& ev;
  const LoginRequest& req;
  SessionNames names;
};

// What a login reads of its port under the registry lock, its login lock
// held: the limits the request is checked against, and what the channel
// is built with.
struct LoginPortView {
  LoginLimits limits;
  u32 sq_size;
  // The device's SRQ when the port has use_srq (stable while the port's
  // login lock is held, device.h); null: the channel gets its own ring.
  RefPtr<SharedRecvQueue> srq;
  // The device's caches of receive rings and command contexts. The device
  // outlives the login: its removal takes the port's login lock, which the
  // login holds.
  RecvRingCache* rings;
  CmdContextCache* cmd_contexts;
  u32 max_cqe;            // the device's largest completion queue
  bool has_tpg;           // an enabled TPG in either of its port name forms
  usize nexus_channels;   // live channels of the request's I_T nexus
};

// A channel a login built and has not registered. Going out of scope
// unregistered it tears the channel down at once (Channel::abort_login):
// nothing of it outlives a refusal, and the cm_id, which it never held, is
// still the caller's to give back.
class PendingChannel : NonCopyable {
 public:
  PendingChannel() = default;
  explicit PendingChannel(RefPtr<Channel> ch) : ch_(move(ch)) {}
  PendingChannel(PendingChannel&& o) noexcept : ch_(move(o.ch_)) {}
  PendingChannel& operator=(PendingChannel&&) = delete;
  ~PendingChannel() {
    if (ch_) ch_->abort_login();
  }

  Channel& operator*() const { return *ch_; }
  Channel* operator->() const { return ch_.get(); }
  // The registry took the channel (Target::commit): it is no longer
  // aborted here, and is released through Channel::close() from now on.
  RefPtr<Channel> registered() { return move(ch_); }

 private:
  RefPtr<Channel> ch_;
};

// A registered channel, waiting for the answer to its login.
struct CommittedLogin {
  RefPtr<Channel> ch;
  bool terminated_others = false;  // SINGLE: older channels of the nexus closed
  bool others = false;             // other live channels of the nexus
};

}  // namespace srpt
