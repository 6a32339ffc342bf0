// SPDX-License-Identifier: GPL-2.0
#include "cm.h"

#include <functional>
#include <memory>
#include <optional>
#include <unordered_set>
#include <utility>

#include <srpt/abi/queue.h>

#include "fault.h"
#include "lock.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `ids` holds every id made since reset (destroyed ones too, so
// tests can read what happened to them); `listeners` the live listeners.
struct CmState {
  std::vector<CmId*> ids;
  std::unordered_set<srpt_k_listener*> listeners;
  int logins_running = 0;
  std::function<void()> before_listen;
};

CmState& state() {
  static CmState* s = new CmState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

// Objects of earlier tests: never freed, so a stale pointer in the core
// stays a readable fake object (and LeakSanitizer sees them reachable).
std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

const char* kind_name(srpt_cm_kind k) {
  return k == SRPT_CM_IB ? "IB/CM" : k == SRPT_CM_RDMA ? "RDMA/CM" : "?";
}

// The id behind `cm` when it may still be used by `op`.
CmId* usable(srpt_cm_kind kind, srpt_k_cm* cm, const char* op) {
  CmId* id = find_cm_id(cm);
  if (id == nullptr) {
    record_violation("%s(%p): not a cm_id", op, static_cast<void*>(cm));
    return nullptr;
  }
  if (id->kind != kind)
    record_violation("%s(cm_id #%d): called as %s, the id is %s", op, id->serial,
                     kind_name(kind), kind_name(id->kind));
  if (id->destroyed()) {
    record_violation("%s(cm_id #%d): the id was already destroyed", op, id->serial);
    return nullptr;
  }
  return id;
}

}  // namespace

CmId* new_cm_id(srpt_cm_kind kind) {
  CmState& s = state();
  CmId* id = new CmId{};
  id->kind = kind;
  id->serial = static_cast<int>(s.ids.size()) + 1;
  s.ids.push_back(id);
  return id;
}

CmId* find_cm_id(const srpt_k_cm* cm) {
  for (CmId* id : state().ids)
    if (id == cm) return id;
  return nullptr;
}

const std::vector<CmId*>& cm_ids() { return state().ids; }

int cm_login(CmId* id, srpt_login_event ev) {
  ev.kind = id->kind;
  ev.cm = id;
  int ret;
  {
    // The CM's worker: a thread of its own that runs to completion, unless
    // the caller is a spawned thread (thread.h), which then plays a CM
    // worker that may wait for a mutex.
    std::optional<OtherThread> cm_thread;
    if (!current_thread_can_block()) cm_thread.emplace();
    id->in_callback++;
    id->logins++;
    state().logins_running++;
    ret = srpt_core_login(&ev);
    state().logins_running--;
    id->in_callback--;
    id->login_ret = ret;
  }
  if (ret != 0) cm_destroy_by_caller(id);
  return ret;
}

void cm_event(CmId* id, srpt_cm_event ev) {
  if (id->destroyed()) {
    record_violation("cm_event(cm_id #%d, %d): the id is destroyed; the CM "
                     "delivers nothing after that", id->serial, static_cast<int>(ev));
    return;
  }
  if (id->context == nullptr) return;
  OtherThread cm_thread;
  id->in_callback++;
  srpt_core_cm_event(id->context, ev);
  id->in_callback--;
}

void cm_destroy_by_caller(CmId* id) {
  trace("cm_destroy_by_caller", id);
  if (id->channel_destroys > 0)
    record_violation("cm_id #%d destroyed by both: the channel destroyed it, "
                     "then the CM core", id->serial);
  else if (id->caller_destroys > 0)
    record_violation("cm_id #%d destroyed twice by the CM core", id->serial);
  id->caller_destroys++;
}

size_t live_listeners() { return state().listeners.size(); }

void before_next_rdma_listen(std::function<void()> hook) { state().before_listen = std::move(hook); }

std::vector<srpt_k_listener*> listeners() {
  return std::vector<srpt_k_listener*>(state().listeners.begin(),
                                       state().listeners.end());
}

std::vector<std::string> cm_leaks() {
  std::vector<std::string> out;
  for (const CmId* id : state().ids) {
    if (!id->destroyed())
      out.push_back("cm_id #" + std::to_string(id->serial) + " (" +
                    kind_name(id->kind) + ") was never destroyed");
  }
  for (const srpt_k_listener* l : state().listeners)
    out.push_back(std::string("listener (") + (l->rdma ? "RDMA/CM" : "IB/CM") +
                  ") was never destroyed");
  return out;
}

void reset_cm() {
  CmState& s = state();
  for (CmId* id : s.ids) graveyard().push_back(id);
  for (srpt_k_listener* l : s.listeners) graveyard().push_back(l);
  s = CmState{};
}

}  // namespace fake

using fake::CmId;

extern "C" void srpt_k_cm_set_context(srpt_cm_kind kind, srpt_k_cm* cm,
                                      srpt_core_chan* ctx) noexcept {
  CmId* id = fake::usable(kind, cm, "srpt_k_cm_set_context");
  fake::trace("srpt_k_cm_set_context", cm);
  if (id) id->context = ctx;
}

extern "C" int srpt_k_cm_reject(srpt_cm_kind kind, srpt_k_cm* cm,
                                const void* priv, size_t len) noexcept {
  CmId* id = fake::usable(kind, cm, "srpt_k_cm_reject");
  fake::trace("srpt_k_cm_reject", cm, static_cast<int64_t>(len));
  if (id == nullptr) return -SRPT_EINVAL;
  if (len > 255) return -SRPT_EINVAL;  // both CMs take a u8 of private data
  if (len > 0 && priv == nullptr) {
    fake::record_violation("srpt_k_cm_reject: %zu bytes of NULL private data", len);
    return -SRPT_EINVAL;
  }
  if (int err = fake::injected_call_error(fake::Call::CmReject)) return err;
  const auto* p = static_cast<const uint8_t*>(priv);
  id->rejects.emplace_back(p, p + len);
  return 0;
}

extern "C" int srpt_k_cm_accept(srpt_cm_kind kind, srpt_k_cm* cm, srpt_k_qp* qp,
                                const void* priv, size_t len) noexcept {
  CmId* id = fake::usable(kind, cm, "srpt_k_cm_accept");
  fake::trace("srpt_k_cm_accept", cm, static_cast<int64_t>(len));
  if (id == nullptr) return -SRPT_EINVAL;
  id->accept_attempts++;
  if (len > 255) return -SRPT_EINVAL;
  if (qp == nullptr || id->qp != qp)
    fake::record_violation("srpt_k_cm_accept(cm_id #%d): the QP was not made on "
                           "this id", id->serial);
  if (kind == SRPT_CM_RDMA && id->in_callback == 0)
    fake::record_violation("srpt_k_cm_accept(cm_id #%d): rdma_accept() outside "
                           "the connect request callback", id->serial);
  if (int err = fake::injected_call_error(fake::Call::CmAccept)) return err;
  const auto* p = static_cast<const uint8_t*>(priv);
  id->accepts.emplace_back(p, p + len);
  return 0;
}

extern "C" int srpt_k_cm_disconnect(srpt_cm_kind kind, srpt_k_cm* cm,
                                    int reply) noexcept {
  CmId* id = fake::usable(kind, cm, "srpt_k_cm_disconnect");
  fake::trace("srpt_k_cm_disconnect", cm, reply);
  if (id == nullptr) return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::CmDisconnect)) return err;
  id->disconnects.push_back(reply);
  return 0;
}

extern "C" void srpt_k_cm_destroy(srpt_cm_kind kind, srpt_k_cm* cm) noexcept {
  fake::might_sleep("srpt_k_cm_destroy");
  fake::trace("srpt_k_cm_destroy", cm);
  CmId* id = fake::find_cm_id(cm);
  if (id == nullptr) {
    fake::record_violation("srpt_k_cm_destroy(%p): not a cm_id", static_cast<void*>(cm));
    return;
  }
  if (id->caller_destroys > 0)
    fake::record_violation("cm_id #%d destroyed by both: the CM core destroyed "
                           "it, then the channel", id->serial);
  else if (id->channel_destroys > 0)
    fake::record_violation("cm_id #%d destroyed twice by the channel", id->serial);
  if (id->in_callback > 0)
    fake::record_violation("cm_id #%d destroyed from inside its own callback "
                           "(deadlock)", id->serial);
  // Only an RDMA/CM QP is made on (and destroyed through) its cm_id.
  if (id->qp != nullptr && id->kind == SRPT_CM_RDMA)
    fake::record_violation("cm_id #%d destroyed before the QP made on it",
                           id->serial);
  if (kind != id->kind)
    fake::record_violation("srpt_k_cm_destroy(cm_id #%d): wrong kind", id->serial);
  id->channel_destroys++;
}

extern "C" int srpt_k_rdma_listen(uint16_t port, srpt_k_listener** out) noexcept {
  fake::might_sleep("srpt_k_rdma_listen");
  fake::trace("srpt_k_rdma_listen", nullptr, port);
  if (std::function<void()> hook = std::exchange(fake::state().before_listen, nullptr)) hook();
  if (int err = fake::creation_error(fake::Call::RdmaListen)) return err;
  // rdma_bind_addr(): one listener per port.
  for (const srpt_k_listener* other : fake::state().listeners)
    if (other->rdma && other->port == port) return -SRPT_EADDRINUSE;
  srpt_k_listener* l = new srpt_k_listener{true, port, nullptr, 0};
  fake::state().listeners.insert(l);
  *out = l;
  return 0;
}

extern "C" int srpt_k_ib_listen(srpt_k_device* kdev, uint64_t service_id,
                                srpt_k_listener** out) noexcept {
  fake::might_sleep("srpt_k_ib_listen");
  fake::trace("srpt_k_ib_listen", kdev);
  if (int err = fake::creation_error(fake::Call::IbListen)) return err;
  srpt_k_listener* l = new srpt_k_listener{false, 0, kdev, service_id};
  fake::state().listeners.insert(l);
  *out = l;
  return 0;
}

extern "C" void srpt_k_listener_destroy(srpt_k_listener* l) noexcept {
  if (l == nullptr) return;
  fake::might_sleep("srpt_k_listener_destroy");
  fake::trace("srpt_k_listener_destroy", l);
  fake::CmState& s = fake::state();
  if (!s.listeners.count(l)) {
    fake::record_violation("srpt_k_listener_destroy(%p): not a live listener",
                           static_cast<void*>(l));
    return;
  }
  // ib_destroy_cm_id / rdma_destroy_id wait for the listener's running REQ
  // callbacks: a spawned kernel thread sleeps until they returned; from
  // inside one (the CM's thread, which cannot block here) it never returns.
  if (s.logins_running > 0 &&
      !(fake::current_thread_can_block() &&
        fake::block_until([&s] { return s.logins_running == 0; })))
    fake::record_violation("srpt_k_listener_destroy inside a connection request "
                           "callback: it waits for that callback (deadlock)");
  // A login takes the target lock to find its port and then the port's login
  // lock: holding either here deadlocks with a login in flight.
  if (fake::holds_mutex_of_class(SRPT_LOCK_LOGIN))
    fake::record_violation("srpt_k_listener_destroy with a login lock held: it "
                           "waits for REQ callbacks that wait for that lock");
  if (fake::holds_mutex_of_class(SRPT_LOCK_TARGET))
    fake::record_violation("srpt_k_listener_destroy with the target lock held: it "
                           "waits for REQ callbacks that wait for that lock");
  s.listeners.erase(l);
  delete l;
}
