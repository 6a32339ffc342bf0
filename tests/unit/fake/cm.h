// SPDX-License-Identifier: GPL-2.0
// The fake connection managers (include/srpt/abi/cm.h): connection ids,
// listeners, and the CM core's side of THE OWNERSHIP RULE.
//
// A test makes a cm_id (new_cm_id) and hands it to the core the way the CM
// core would: cm_login() calls srpt_core_login() inside the id's callback
// and, when it returns non-zero, destroys the id as the CM core does
// ("caller"). srpt_k_cm_destroy() is the channel destroying it ("channel").
// Every reject, accept and disconnect is recorded with its private data.
//
// Violations: an id destroyed twice, or by both the channel and the caller;
// destroyed from inside its own callback (the kernel would deadlock) or
// before the QP made on it; any call on an id already destroyed; an RDMA/CM
// accept outside the connection request's callback; an accept with a QP not
// made on that id. cm_leaks() (end of test) lists ids nobody destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <srpt/abi/cm.h>

// The fake's connection id: what srpt_k_cm points at.
struct srpt_k_cm {
  srpt_cm_kind kind;
  int serial;                 // 1, 2, ... in creation order
  srpt_core_chan* context = nullptr;  // srpt_k_cm_set_context
  int logins = 0;             // cm_login() calls
  int login_ret = 0;          // what the last srpt_core_login() returned
  std::vector<std::vector<uint8_t>> rejects;  // private data of each reject
  std::vector<std::vector<uint8_t>> accepts;  // ... of each successful accept
  int accept_attempts = 0;
  std::vector<int> disconnects;               // `reply` of each disconnect
  int caller_destroys = 0;    // by the CM core, after a non-zero login
  int channel_destroys = 0;   // srpt_k_cm_destroy()
  int in_callback = 0;        // inside one of its own callbacks
  srpt_k_qp* qp = nullptr;    // the live QP made on it

  int destroys() const { return caller_destroys + channel_destroys; }
  bool destroyed() const { return destroys() > 0; }
};

struct srpt_k_listener {
  bool rdma;              // else IB/CM
  uint16_t port;          // RDMA/CM
  srpt_k_device* kdev;    // IB/CM
  uint64_t service_id;    // IB/CM
};

namespace fake {

using CmId = srpt_k_cm;

// A new connection id, owned by the fake until reset.
CmId* new_cm_id(srpt_cm_kind kind);
// nullptr when `cm` is no id the fake made.
CmId* find_cm_id(const srpt_k_cm* cm);
const std::vector<CmId*>& cm_ids();

// The CM core's REQ callback: srpt_core_login(&ev) with ev.cm and ev.kind
// taken from `id`, inside the id's callback; on a non-zero return the CM core
// destroys the id ("caller"). Returns what srpt_core_login() returned. The
// callback runs as another kernel thread that cannot wait (thread.h), or,
// called from a spawned thread, as that thread, which can.
int cm_login(CmId* id, srpt_login_event ev);
// The CM core delivers `ev` to the id's context, as the shim's handler does
// (dropped while no context is set).
void cm_event(CmId* id, srpt_cm_event ev);
// The CM core destroys the id, as after a non-zero return.
void cm_destroy_by_caller(CmId* id);

size_t live_listeners();
std::vector<srpt_k_listener*> listeners();
// Runs `hook` once, at the start of the next srpt_k_rdma_listen(). A second
// RDMA/CM listener on a port that has one fails -EADDRINUSE, as binding does.
void before_next_rdma_listen(std::function<void()> hook);

// Ids that were never destroyed, as lines for a failure message.
std::vector<std::string> cm_leaks();
// Forgets every id and listener; the memory stays valid until process exit.
void reset_cm();

}  // namespace fake
