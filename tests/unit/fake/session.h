// SPDX-License-Identifier: GPL-2.0
// The fake target-core sessions (include/srpt/abi/session.h, first part)
// and the TPGs they are made in.
//
// The harness makes one fake TPG (struct srpt_k_tpg, the shim's
// se_portal_group) per configfs TPG; a test says which initiator names each
// one admits (its ACLs). srpt_k_session_create() records every attempt, fails
// with an injected error (fault.h) or -ENOMEM when its allocation attempt
// fails, with -EACCES when no ACL admits the name, and otherwise makes the
// session and runs the test's hook, if any, before returning 0.
// srpt_k_tpg_admits() answers from the same ACLs (traced, so a test can see
// it was asked); it makes nothing and cannot fail.
//
// srpt_k_session_drain() stops the session and waits, as
// target_wait_for_sess_cmds() does, until every command submitted in it was
// released: it runs the other threads' pending work meanwhile (loop.h) and,
// playing the backend, completes commands that are still with the target
// core (cmd.h). If that cannot release them all, the wait would never end:
// a violation. Removing a session with commands not released, or submitting
// to a removed one, is a violation too.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <srpt/abi/session.h>

struct srpt_k_tpg {
  std::string name;
  int serial;
  std::set<std::string> acl;  // initiator names admitted
};

struct srpt_k_session {
  srpt_k_tpg* tpg;
  std::string initiator;
  srpt_core_chan* ctx;  // the channel
  int serial;
  bool stopped = false;  // drained: new commands are answered BUSY
  int active_cmds = 0;   // submitted and not released
};

namespace fake {

// A TPG of the shim, owned by the fake until reset.
srpt_k_tpg* new_ktpg(const std::string& name);
void allow_initiator(srpt_k_tpg* tpg, const std::string& name);
void disallow_initiator(srpt_k_tpg* tpg, const std::string& name);

struct SessionAttempt {
  srpt_k_tpg* tpg;
  std::string name;
  int ret;
};
const std::vector<SessionAttempt>& session_attempts();
// Every srpt_k_tpg_admits() question, in order; ret is its answer (1, 0).
const std::vector<SessionAttempt>& acl_queries();

// Runs inside srpt_k_session_create() after the session was made, before it
// returns 0 (a configfs write racing the login, say). Stays set until
// replaced; an empty function clears it.
void on_session_create(std::function<void(srpt_k_session*)> hook);

size_t live_sessions();
std::vector<srpt_k_session*> sessions();  // live, in creation order
// The target core closes the session (ACL removed): srpt_core_session_close.
void close_session(srpt_k_session* sess);

std::vector<std::string> session_leaks();
void reset_session();

}  // namespace fake
