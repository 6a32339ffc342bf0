// SPDX-License-Identifier: GPL-2.0
#include "fault.h"

#include <srpt/abi/types.h>

namespace fake {
namespace {

// Invariant: when `armed`, attempt number `fail_at` fails, and so does every
// later one if `and_later`; `attempts` counts attempts since arming.
struct FaultState {
  bool armed = false;
  bool and_later = false;
  size_t fail_at = 0;
  size_t attempts = 0;
  size_t injected = 0;
};

FaultState& state() {
  static FaultState s;
  return s;
}

// Per ABI function: when `armed`, call number `fail_at` (counted from the
// arming) fails with `err`, and every later one if `and_later`.
struct CallFault {
  bool armed = false;
  bool and_later = false;
  int err = 0;
  size_t fail_at = 0;
  size_t since_armed = 0;
  size_t calls = 0;
  size_t injected = 0;
};

CallFault (&calls())[static_cast<int>(Call::Count)] {
  static CallFault c[static_cast<int>(Call::Count)];
  return c;
}

CallFault& call_state(Call c) { return calls()[static_cast<int>(c)]; }

void arm(size_t n, bool and_later) {
  FaultState& s = state();
  s.armed = true;
  s.and_later = and_later;
  s.fail_at = n;
  s.attempts = 0;
  s.injected = 0;
}

}  // namespace

void fail_nth_allocation(size_t n) { arm(n, false); }
void fail_allocations_from(size_t n) { arm(n, true); }
void disarm_allocation_failures() { state().armed = false; }

size_t injected_failure_count() { return state().injected; }
size_t allocation_attempts() { return state().attempts; }

bool next_allocation_fails() {
  FaultState& s = state();
  const size_t n = s.attempts++;
  const bool fail = s.armed && (s.and_later ? n >= s.fail_at : n == s.fail_at);
  if (fail) s.injected++;
  return fail;
}

const char* call_name(Call c) {
  switch (c) {
    case Call::SpinlockCreate: return "srpt_spinlock_create";
    case Call::RingCreate: return "srpt_k_ring_create";
    case Call::QpCreate: return "srpt_k_qp_create";
    case Call::QpReady: return "srpt_k_qp_ready";
    case Call::QpError: return "srpt_k_qp_error";
    case Call::PostRecv: return "srpt_k_post_recv";
    case Call::PostSend: return "srpt_k_post_send";
    case Call::CmReject: return "srpt_k_cm_reject";
    case Call::CmAccept: return "srpt_k_cm_accept";
    case Call::CmDisconnect: return "srpt_k_cm_disconnect";
    case Call::RdmaListen: return "srpt_k_rdma_listen";
    case Call::IbListen: return "srpt_k_ib_listen";
    case Call::SessionCreate: return "srpt_k_session_create";
    case Call::WorkCreate: return "srpt_k_work_create";
    case Call::CompletionCreate: return "srpt_k_completion_create";
    case Call::CmdCreate: return "srpt_k_cmd_create";
    case Call::CmdRdmaPrepare: return "srpt_k_cmd_rdma_prepare";
    case Call::CmdRdmaRead: return "srpt_k_cmd_rdma_read";
    case Call::CmdRdmaWrite: return "srpt_k_cmd_rdma_write";
    case Call::CmdFetch: return "srpt_k_cmd_fetch";
    case Call::CmdSendRsp: return "srpt_k_cmd_send_rsp";
    case Call::CmdSubmitTmf: return "srpt_k_cmd_submit_tmf";
    case Call::SrqCreate: return "srpt_k_srq_create";
    case Call::SrqPostRecv: return "srpt_k_srq_post_recv";
    case Call::DmAgentCreate: return "srpt_k_dm_agent_create";
    case Call::PortGid0: return "srpt_k_port_gid0";
    case Call::Count: break;
  }
  return "?";
}

void fail_call(Call c, int err, size_t skip, bool and_later) {
  CallFault& f = call_state(c);
  f.armed = true;
  f.and_later = and_later;
  f.err = err;
  f.fail_at = skip;
  f.since_armed = 0;
}

void disarm_call(Call c) { call_state(c).armed = false; }
size_t call_count(Call c) { return call_state(c).calls; }
size_t injected_call_failures(Call c) { return call_state(c).injected; }

int injected_call_error(Call c) {
  CallFault& f = call_state(c);
  f.calls++;
  if (!f.armed) return 0;
  const size_t n = f.since_armed++;
  const bool fail = f.and_later ? n >= f.fail_at : n == f.fail_at;
  if (!fail) return 0;
  if (!f.and_later) f.armed = false;
  f.injected++;
  return f.err;
}

int creation_error(Call c) {
  if (int err = injected_call_error(c)) return err;
  return next_allocation_fails() ? -SRPT_ENOMEM : 0;
}

void reset_fault() {
  state() = FaultState{};
  for (CallFault& f : calls()) f = CallFault{};
}

}  // namespace fake
