// SPDX-License-Identifier: GPL-2.0
#include "session.h"

#include <algorithm>

#include "cmd.h"
#include "fault.h"
#include "lock.h"
#include "loop.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `sessions` holds exactly the live sessions; `tpgs` every TPG
// made since reset.
struct SessionState {
  std::vector<srpt_k_tpg*> tpgs;
  std::vector<srpt_k_session*> sessions;
  std::vector<SessionAttempt> attempts;
  std::vector<SessionAttempt> queries;
  std::function<void(srpt_k_session*)> hook;
  int next_serial = 1;
};

SessionState& state() {
  static SessionState* s = new SessionState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

bool live_session(const srpt_k_session* sess, const char* op) {
  const auto& v = state().sessions;
  if (std::find(v.begin(), v.end(), sess) != v.end()) return true;
  record_violation("%s(%p): not a live session", op, static_cast<const void*>(sess));
  return false;
}

}  // namespace

srpt_k_tpg* new_ktpg(const std::string& name) {
  SessionState& s = state();
  srpt_k_tpg* t = new srpt_k_tpg{name, static_cast<int>(s.tpgs.size()) + 1, {}};
  s.tpgs.push_back(t);
  return t;
}

void allow_initiator(srpt_k_tpg* tpg, const std::string& name) { tpg->acl.insert(name); }
void disallow_initiator(srpt_k_tpg* tpg, const std::string& name) { tpg->acl.erase(name); }

const std::vector<SessionAttempt>& session_attempts() { return state().attempts; }
const std::vector<SessionAttempt>& acl_queries() { return state().queries; }

void on_session_create(std::function<void(srpt_k_session*)> hook) {
  state().hook = std::move(hook);
}

size_t live_sessions() { return state().sessions.size(); }
std::vector<srpt_k_session*> sessions() { return state().sessions; }

void close_session(srpt_k_session* sess) {
  if (!live_session(sess, "close_session")) return;
  OtherThread target_core;
  srpt_core_session_close(sess->ctx);
}

std::vector<std::string> session_leaks() {
  std::vector<std::string> out;
  for (const srpt_k_session* s : state().sessions)
    out.push_back("session of \"" + s->initiator + "\" was never removed");
  return out;
}

void reset_session() {
  SessionState& s = state();
  for (srpt_k_session* x : s.sessions) graveyard().push_back(x);
  for (srpt_k_tpg* t : s.tpgs) graveyard().push_back(t);
  s.hook = nullptr;
  s = SessionState{};
}

// Whether `tpg` is one the shim made; a violation of `fn` when not.
static bool known_tpg(const char* fn, srpt_k_tpg* tpg) {
  const SessionState& s = state();
  if (std::find(s.tpgs.begin(), s.tpgs.end(), tpg) != s.tpgs.end()) return true;
  record_violation("%s(%p): not a TPG of the shim", fn, static_cast<void*>(tpg));
  return false;
}

}  // namespace fake

extern "C" int srpt_k_session_create(srpt_k_tpg* tpg, const char* initiator_name,
                                     srpt_core_chan* ctx,
                                     srpt_k_session** out) noexcept {
  fake::might_sleep("srpt_k_session_create");
  fake::trace("srpt_k_session_create", tpg);
  fake::SessionState& s = fake::state();
  if (!fake::known_tpg("srpt_k_session_create", tpg)) return -SRPT_EINVAL;
  const std::string name = initiator_name ? initiator_name : "";
  int ret = fake::creation_error(fake::Call::SessionCreate);
  if (ret == 0 && !tpg->acl.count(name)) ret = -SRPT_EACCES;
  s.attempts.push_back(fake::SessionAttempt{tpg, name, ret});
  if (ret != 0) return ret;
  srpt_k_session* sess = new srpt_k_session{tpg, name, ctx, s.next_serial++};
  s.sessions.push_back(sess);
  *out = sess;
  if (s.hook) {
    auto hook = s.hook;  // the hook may replace itself
    hook(sess);
  }
  return 0;
}

extern "C" int srpt_k_tpg_admits(srpt_k_tpg* tpg, const char* initiator_name) noexcept {
  fake::might_sleep("srpt_k_tpg_admits");
  fake::trace("srpt_k_tpg_admits", tpg);
  fake::SessionState& s = fake::state();
  if (!fake::known_tpg("srpt_k_tpg_admits", tpg)) return 0;
  const std::string name = initiator_name ? initiator_name : "";
  const int ret = tpg->acl.count(name) ? 1 : 0;
  s.queries.push_back(fake::SessionAttempt{tpg, name, ret});
  return ret;
}

extern "C" void srpt_k_session_drain(srpt_k_session* sess) noexcept {
  fake::might_sleep("srpt_k_session_drain");
  fake::trace("srpt_k_session_drain", sess);
  if (!fake::live_session(sess, "srpt_k_session_drain")) return;
  sess->stopped = true;
  while (sess->active_cmds > 0) {
    if (fake::run_one_pending()) continue;
    if (fake::finish_one_cmd_of(sess)) continue;
    fake::record_violation("srpt_k_session_drain(\"%s\"): %d commands are never "
                           "released; the drain would wait forever",
                           sess->initiator.c_str(), sess->active_cmds);
    break;
  }
}

extern "C" void srpt_k_session_remove(srpt_k_session* sess) noexcept {
  fake::might_sleep("srpt_k_session_remove");
  fake::trace("srpt_k_session_remove", sess);
  if (!fake::live_session(sess, "srpt_k_session_remove")) return;
  if (sess->active_cmds > 0)
    fake::record_violation("srpt_k_session_remove(\"%s\") with %d commands not "
                           "released", sess->initiator.c_str(), sess->active_cmds);
  auto& v = fake::state().sessions;
  v.erase(std::find(v.begin(), v.end(), sess));
  fake::graveyard().push_back(sess);  // commands may still point at it
}
