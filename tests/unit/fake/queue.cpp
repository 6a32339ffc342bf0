// SPDX-License-Identifier: GPL-2.0
#include "queue.h"

#include <srpt/abi/lock.h>

#include <algorithm>
#include <cstring>

#include "cm.h"
#include "cmd.h"
#include "fault.h"
#include "lock.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `qps` and `rings` hold exactly the live objects, in creation
// order; a ring entry is `posted` while a QP's recvs (or sends) lists it.
struct QueueState {
  std::vector<srpt_k_qp*> qps;
  std::vector<srpt_k_ring*> rings;
  std::vector<srpt_k_srq*> srqs;
  int next_serial = 1;
};

QueueState& state() {
  static QueueState* s = new QueueState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

bool live_qp(const srpt_k_qp* qp, const char* op) {
  const auto& v = state().qps;
  if (std::find(v.begin(), v.end(), qp) != v.end()) return true;
  record_violation("%s(%p): not a live QP", op, static_cast<const void*>(qp));
  return false;
}

bool live_srq(const srpt_k_srq* q, const char* op) {
  const auto& v = state().srqs;
  if (std::find(v.begin(), v.end(), q) != v.end()) return true;
  record_violation("%s(%p): not a live SRQ", op, static_cast<const void*>(q));
  return false;
}

// The receives a completion of `qp` takes: its SRQ's, or its own.
std::deque<PostedRecv>& recv_source(srpt_k_qp* qp) {
  return qp->params.srq != nullptr ? qp->params.srq->recvs : qp->recvs;
}

bool live_ring(const srpt_k_ring* r, const char* op) {
  const auto& v = state().rings;
  if (std::find(v.begin(), v.end(), r) != v.end()) return true;
  record_violation("%s(%p): not a live ring", op, static_cast<const void*>(r));
  return false;
}

// Runs one completion of `qp` as the CQ's poll work.
template <class Fn>
void as_completion(srpt_k_qp* qp, Fn fn) {
  OtherThread cq_thread;
  qp->in_completion++;
  fn();
  qp->in_completion--;
}

// `wc_status`: the ib_wc_status the completion carries (kWcSuccess: ok).
void deliver_send(srpt_k_qp* qp, PostedSend s, int wc_status) {
  const bool ok = wc_status == kWcSuccess;
  if (s.ring != nullptr) s.ring->posted[s.index] = false;
  as_completion(qp, [&] {
    if (s.kind == PostedSend::Kind::RdmaRead || s.kind == PostedSend::Kind::RdmaWrite)
      cmd_rdma_part_completed(s.cmd, wc_status);
    else if (s.kind == PostedSend::Kind::Fetch)
      cmd_fetch_completed(s.cmd, ok);
    else
      srpt_core_send_done(qp->params.ctx, s.index, ok ? 1 : 0);
  });
}

// An unsignalled prefix is flushed without a completion; as it goes, the
// device still moves the data of its work requests, so the command must
// still hold its buffer and its mapped contexts.
void flush_unsignalled(const PostedSend& s) {
  if (!cmd_holds_buffers(s.cmd))
    record_violation("flushing %u unsignalled RDMA work requests of a command whose "
                     "buffer or contexts are gone: the device would access freed memory",
                     s.rdma_wrs);
}

void deliver_recv_done(srpt_k_qp* qp, PostedRecv r, uint32_t len, bool ok) {
  r.ring->posted[r.index] = false;
  as_completion(qp, [&] {
    srpt_core_recv_done(qp->params.ctx, r.index, ok ? len : 0, ok ? 1 : 0);
  });
}

}  // namespace

void qp_event(srpt_k_qp* qp, srpt_qp_event ev, const char* name) {
  if (!live_qp(qp, "qp_event")) return;
  trace("qp_event", qp, ev);
  OtherThread event_thread;
  srpt_spinlock* atomic = srpt_spinlock_create(SRPT_LOCK_TEST);
  srpt_spin_lock_irqsave(atomic);
  srpt_core_qp_event(qp->params.ctx, ev, name);
  srpt_spin_unlock_irqrestore(atomic);
  srpt_spinlock_destroy(atomic);
}

void srq_event(srpt_k_srq* srq, srpt_srq_event ev) {
  if (!live_srq(srq, "srq_event")) return;
  trace("srq_event", srq, ev);
  OtherThread event_thread;
  // The driver's event context may be atomic.
  srpt_spinlock* atomic = srpt_spinlock_create(SRPT_LOCK_TEST);
  srpt_spin_lock_irqsave(atomic);
  srpt_core_srq_event(srq->ctx, ev);
  srpt_spin_unlock_irqrestore(atomic);
  srpt_spinlock_destroy(atomic);
}

size_t live_qps() { return state().qps.size(); }
size_t live_rings() { return state().rings.size(); }
size_t live_srqs() { return state().srqs.size(); }
std::vector<srpt_k_srq*> srqs() { return state().srqs; }
std::vector<srpt_k_qp*> qps() { return state().qps; }

srpt_k_qp* qp_of(const srpt_k_cm* cm) {
  for (srpt_k_qp* qp : state().qps)
    if (qp->cm == cm) return qp;
  return nullptr;
}

uint32_t deliver_recv(srpt_k_qp* qp, const std::vector<uint8_t>& iu) {
  if (!live_qp(qp, "deliver_recv")) return ~0u;
  std::deque<PostedRecv>& recvs = recv_source(qp);
  if (recvs.empty()) {
    record_violation("deliver_recv(QP #%d): no receive is posted", qp->serial);
    return ~0u;
  }
  if (qp->error) {
    record_violation("deliver_recv(QP #%d): the QP is in the error state; its "
                     "receives only flush", qp->serial);
    return ~0u;
  }
  PostedRecv r = recvs.front();
  recvs.pop_front();
  std::vector<uint8_t>& buf = r.ring->bufs[r.index];
  const uint32_t len = static_cast<uint32_t>(std::min<size_t>(iu.size(), buf.size()));
  std::fill(buf.begin(), buf.end(), 0xa5);  // what the last IU left, say
  if (len) memcpy(buf.data(), iu.data(), len);
  trace("deliver_recv", qp, r.index);
  deliver_recv_done(qp, r, len, true);
  return r.index;
}

uint32_t fail_recv(srpt_k_qp* qp) {
  if (!live_qp(qp, "fail_recv")) return ~0u;
  std::deque<PostedRecv>& recvs = recv_source(qp);
  if (recvs.empty()) {
    record_violation("fail_recv(QP #%d): no receive is posted", qp->serial);
    return ~0u;
  }
  PostedRecv r = recvs.front();
  recvs.pop_front();
  trace("fail_recv", qp, r.index);
  deliver_recv_done(qp, r, 0, false);
  return r.index;
}

uint32_t take_srq_recv(srpt_k_qp* qp, const std::vector<uint8_t>& iu) {
  if (!live_qp(qp, "take_srq_recv")) return ~0u;
  if (qp->params.srq == nullptr || qp->params.srq->recvs.empty() || qp->error) {
    record_violation("take_srq_recv(QP #%d): needs a QP on an SRQ with a buffer "
                     "posted, not in the error state", qp->serial);
    return ~0u;
  }
  PostedRecv r = qp->params.srq->recvs.front();
  qp->params.srq->recvs.pop_front();
  std::vector<uint8_t>& buf = r.ring->bufs[r.index];
  const uint32_t len = static_cast<uint32_t>(std::min<size_t>(iu.size(), buf.size()));
  std::fill(buf.begin(), buf.end(), 0xa5);
  if (len) memcpy(buf.data(), iu.data(), len);
  trace("take_srq_recv", qp, r.index);
  qp->late_recvs.emplace_back(r, len);
  return r.index;
}

uint32_t complete_late_recv(srpt_k_qp* qp, bool ok) {
  if (!live_qp(qp, "complete_late_recv")) return ~0u;
  if (qp->late_recvs.empty()) {
    record_violation("complete_late_recv(QP #%d): the device holds no buffer for it",
                     qp->serial);
    return ~0u;
  }
  const auto [r, len] = qp->late_recvs.front();
  qp->late_recvs.pop_front();
  trace(ok ? "late_recv" : "late_recv_flushed", qp, r.index);
  deliver_recv_done(qp, r, len, ok);
  return r.index;
}

uint32_t complete_send(srpt_k_qp* qp, size_t n, bool ok) {
  return complete_send_status(qp, n, ok ? kWcSuccess : kWcRemAccessErr);
}

uint32_t complete_send_status(srpt_k_qp* qp, size_t n, int wc_status) {
  if (!live_qp(qp, "complete_send")) return ~0u;
  if (n >= qp->sends.size()) {
    record_violation("complete_send(QP #%d, %zu): only %zu sends are posted",
                     qp->serial, n, qp->sends.size());
    return ~0u;
  }
  if (qp->sends[n].unsignalled) {
    record_violation("complete_send(QP #%d, %zu): an unsignalled request has no "
                     "completion of its own", qp->serial, n);
    return ~0u;
  }
  PostedSend s = qp->sends[n];
  qp->sends.erase(qp->sends.begin() + static_cast<long>(n));
  trace("complete_send", qp, s.index);
  deliver_send(qp, s, wc_status);
  return s.index;
}

bool flush_one(srpt_k_qp* qp) {
  if (!qp->error) return false;
  const bool have_recv = !qp->recvs.empty();
  const bool have_send = !qp->sends.empty();
  if (!have_recv && !have_send) return false;
  if (have_send && (!have_recv || qp->sends.front().seq < qp->recvs.front().seq)) {
    PostedSend s = qp->sends.front();
    qp->sends.pop_front();
    trace("flush_send", qp, s.index);
    if (s.unsignalled)
      flush_unsignalled(s);
    else
      deliver_send(qp, s, kWcWrFlushErr);
  } else {
    PostedRecv r = qp->recvs.front();
    qp->recvs.pop_front();
    trace("flush_recv", qp, r.index);
    deliver_recv_done(qp, r, 0, false);
  }
  return true;
}

size_t flush_qp(srpt_k_qp* qp) {
  size_t n = 0;
  while (flush_one(qp)) n++;
  return n;
}

bool flush_any() {
  for (srpt_k_qp* qp : state().qps)
    if (flush_one(qp)) return true;
  return false;
}

namespace {
uint32_t g_max_srq_wr = 0;
}  // namespace

void set_max_srq_wr(uint32_t n) { g_max_srq_wr = n; }
uint32_t max_srq_wr() { return g_max_srq_wr; }

const srpt_k_ring* ring_holding(const uint8_t* p, uint32_t* offset) {
  for (const srpt_k_ring* r : state().rings)
    for (const std::vector<uint8_t>& b : r->bufs)
      if (!b.empty() && p >= b.data() && p < b.data() + b.size()) {
        *offset = static_cast<uint32_t>(p - b.data());
        return r;
      }
  return nullptr;
}

std::vector<std::string> queue_leaks() {
  std::vector<std::string> out;
  for (const srpt_k_qp* qp : state().qps)
    out.push_back("QP #" + std::to_string(qp->serial) + " was never destroyed");
  for (const srpt_k_ring* r : state().rings)
    out.push_back(std::string(r->dir == SRPT_RING_RECV ? "receive" : "send") +
                  " ring of " + std::to_string(r->count) +
                  " buffers was never destroyed");
  for (const srpt_k_srq* q : state().srqs)
    out.push_back("SRQ #" + std::to_string(q->serial) + " was never destroyed");
  return out;
}

void reset_queue() {
  QueueState& s = state();
  for (srpt_k_qp* qp : s.qps) graveyard().push_back(qp);
  for (srpt_k_ring* r : s.rings) graveyard().push_back(r);
  for (srpt_k_srq* q : s.srqs) graveyard().push_back(q);
  s = QueueState{};
  reset_post_stack();
  g_max_srq_wr = 0;
}

namespace {
uint32_t wrs_of(const PostedSend& s) {
  switch (s.kind) {
    case PostedSend::Kind::Send: return 1;
    case PostedSend::Kind::CmdRsp: return 1 + s.rdma_wrs;
    case PostedSend::Kind::RdmaRead: return s.marker ? 1 : s.rdma_wrs;
    case PostedSend::Kind::RdmaWrite: return s.marker ? 1 : s.rdma_wrs;
    case PostedSend::Kind::Fetch: return 1;
  }
  return 1;
}
}  // namespace

// A post that would overfill the send queue (send_depth work requests, as
// granted at creation) is a violation in every QP state: the real QP
// refuses it (a live channel then dies; in the error state the chain is
// left posted in part, and the drain request may find no room).
void check_sq_room(srpt_k_qp* qp, const PostedSend& s) {
  uint32_t used = 0;
  for (const PostedSend& p : qp->sends) used += wrs_of(p);
  if (used + wrs_of(s) > qp->params.send_depth)
    record_violation("QP #%d: send queue overflow: %u work requests posted, %u more, "
                     "depth %u", qp->serial, used, wrs_of(s), qp->params.send_depth);
}

namespace {
uintptr_t post_stack_lo = 0, post_stack_hi = 0;
}  // namespace

void note_post_stack(const void* frame) {
  const uintptr_t f = reinterpret_cast<uintptr_t>(frame);
  if (post_stack_lo == 0 || f < post_stack_lo) post_stack_lo = f;
  if (f > post_stack_hi) post_stack_hi = f;
}

void reset_post_stack() { post_stack_lo = post_stack_hi = 0; }

size_t post_stack_span() { return post_stack_hi - post_stack_lo; }

// For the command fake: a command's send work request.
void post_cmd_send(srpt_k_qp* qp, PostedSend s) {
  check_sq_room(qp, s);
  const bool rdma = s.kind == PostedSend::Kind::RdmaRead || s.kind == PostedSend::Kind::RdmaWrite;
  s.seq = trace(s.kind == PostedSend::Kind::RdmaRead    ? "post_rdma_read"
                : s.kind == PostedSend::Kind::RdmaWrite ? "post_rdma_write"
                : s.kind == PostedSend::Kind::Fetch     ? "post_fetch"
                                                        : "post_cmd_rsp",
                qp, rdma ? -1 : s.index);
  if (s.ring != nullptr) s.ring->posted[s.index] = true;
  qp->sends.push_back(s);
  if (!s.marker) qp->sent.push_back(std::move(s));
}

bool check_send_slot(srpt_k_qp* qp, srpt_k_ring* ring, uint32_t index,
                     uint32_t len, const char* op) {
  if (!live_qp(qp, op) || !live_ring(ring, op)) return false;
  if (ring->dir != SRPT_RING_SEND) {
    record_violation("%s: a receive ring", op);
    return false;
  }
  if (index >= ring->count || len == 0 || len > ring->size) {
    record_violation("%s(index %u, len %u): ring of %u buffers of %u bytes", op,
                     index, len, ring->count, ring->size);
    return false;
  }
  if (ring->posted[index]) {
    record_violation("%s(index %u): the previous send of this buffer has not "
                     "completed", op, index);
    return false;
  }
  return true;
}

}  // namespace fake

extern "C" int srpt_k_qp_create(srpt_cm_kind kind, srpt_k_cm* cm,
                                srpt_k_device* kdev, uint32_t port_num,
                                srpt_qp_params* params,
                                srpt_k_qp** out) noexcept {
  fake::might_sleep("srpt_k_qp_create");
  fake::trace("srpt_k_qp_create", cm);
  fake::CmId* id = fake::find_cm_id(cm);
  if (id == nullptr || id->destroyed()) {
    fake::record_violation("srpt_k_qp_create: %p is not a live cm_id",
                           static_cast<void*>(cm));
    return -SRPT_EINVAL;
  }
  if (id->kind != kind)
    fake::record_violation("srpt_k_qp_create(cm_id #%d): wrong kind", id->serial);
  if (id->qp != nullptr)
    fake::record_violation("srpt_k_qp_create(cm_id #%d): the id has a QP already",
                           id->serial);
  if (params->send_depth == 0 || params->recv_depth == 0) return -SRPT_EINVAL;
  if (params->srq != nullptr && !fake::live_srq(params->srq, "srpt_k_qp_create"))
    return -SRPT_EINVAL;
  if (int err = fake::creation_error(fake::Call::QpCreate)) return err;
  srpt_k_qp* qp = new srpt_k_qp{};
  qp->kind = kind;
  qp->cm = cm;
  qp->kdev = kdev;
  qp->port_num = port_num;
  qp->params = *params;
  qp->serial = fake::state().next_serial++;
  fake::state().qps.push_back(qp);
  id->qp = qp;
  *out = qp;
  return 0;
}

extern "C" int srpt_k_qp_ready(srpt_k_qp* qp) noexcept {
  fake::trace("srpt_k_qp_ready", qp);
  if (!fake::live_qp(qp, "srpt_k_qp_ready")) return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::QpReady)) return err;
  qp->ready = true;
  return 0;
}

extern "C" int srpt_k_qp_error(srpt_k_qp* qp) noexcept {
  fake::trace("srpt_k_qp_error", qp);
  if (!fake::live_qp(qp, "srpt_k_qp_error")) return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::QpError)) return err;
  qp->error = true;
  return 0;
}

extern "C" void srpt_k_qp_destroy(srpt_k_qp* qp) noexcept {
  fake::might_sleep("srpt_k_qp_destroy");
  fake::trace("srpt_k_qp_destroy", qp);
  if (!fake::live_qp(qp, "srpt_k_qp_destroy")) return;
  if (qp->in_completion > 0) {
    fake::record_violation("srpt_k_qp_destroy(QP #%d) from one of its own "
                           "completions: ib_drain_qp() would wait for itself",
                           qp->serial);
    return;
  }
  fake::CmId* id = fake::find_cm_id(qp->cm);
  // An RDMA/CM QP is made on its cm_id (rdma_create_qp) and destroyed
  // through it (rdma_destroy_qp); an IB/CM QP does not depend on the cm_id.
  if (id != nullptr && id->destroyed() && id->kind == SRPT_CM_RDMA)
    fake::record_violation("srpt_k_qp_destroy(QP #%d) after its cm_id was "
                           "destroyed (RDMA/CM)", qp->serial);
  // ib_drain_qp(): to the error state, then wait for every completion. On
  // an SRQ (srpt_k_qp_drain_srq): the send queue's drain, and receive
  // completions of SRQ buffers the device took for the QP may still run
  // after its drain request, while the destroy goes on.
  qp->error = true;
  fake::flush_qp(qp);
  while (!qp->late_recvs.empty()) fake::complete_late_recv(qp, true);
  auto& v = fake::state().qps;
  v.erase(std::find(v.begin(), v.end(), qp));
  if (id != nullptr && id->qp == qp) id->qp = nullptr;
  delete qp;
}

extern "C" int srpt_k_ring_create(srpt_k_device* kdev, uint32_t count,
                                  uint32_t size, uint32_t align_at,
                                  srpt_ring_dir dir, srpt_k_ring** out) noexcept {
  fake::might_sleep("srpt_k_ring_create");
  fake::trace("srpt_k_ring_create", kdev, count);
  if (count == 0 || size == 0 || (dir != SRPT_RING_RECV && dir != SRPT_RING_SEND))
    return -SRPT_EINVAL;
  if (int err = fake::creation_error(fake::Call::RingCreate)) return err;
  srpt_k_ring* r = new srpt_k_ring{};
  r->kdev = kdev;
  r->count = count;
  r->size = size;
  r->align_at = align_at;
  r->dir = dir;
  r->bufs.assign(count, std::vector<uint8_t>(size, 0));
  r->posted.assign(count, false);
  fake::state().rings.push_back(r);
  *out = r;
  return 0;
}

extern "C" uint8_t* srpt_k_ring_buf(srpt_k_ring* ring, uint32_t index) noexcept {
  if (!fake::live_ring(ring, "srpt_k_ring_buf")) return nullptr;
  if (index >= ring->count) {
    fake::record_violation("srpt_k_ring_buf(index %u): ring of %u", index, ring->count);
    return nullptr;
  }
  return ring->bufs[index].data();
}

extern "C" void srpt_k_ring_destroy(srpt_k_ring* ring) noexcept {
  if (ring == nullptr) return;
  fake::trace("srpt_k_ring_destroy", ring);
  if (!fake::live_ring(ring, "srpt_k_ring_destroy")) return;
  for (uint32_t i = 0; i < ring->count; i++) {
    if (ring->posted[i]) {
      fake::record_violation("srpt_k_ring_destroy: buffer %u is still posted", i);
      return;  // leaked rather than freed under the device's feet
    }
  }
  auto& v = fake::state().rings;
  v.erase(std::find(v.begin(), v.end(), ring));
  delete ring;
}

extern "C" int srpt_k_post_recv(srpt_k_qp* qp, srpt_k_ring* ring,
                                uint32_t index) noexcept {
  const uint64_t seq = fake::trace("srpt_k_post_recv", qp, index);
  if (!fake::live_qp(qp, "srpt_k_post_recv") ||
      !fake::live_ring(ring, "srpt_k_post_recv"))
    return -SRPT_EINVAL;
  if (qp->params.srq != nullptr) {
    fake::record_violation("srpt_k_post_recv(QP #%d): the QP takes its receives "
                           "from an SRQ and has no receive queue", qp->serial);
    return -SRPT_EINVAL;
  }
  if (ring->dir != SRPT_RING_RECV || index >= ring->count) {
    fake::record_violation("srpt_k_post_recv(index %u): not a receive buffer", index);
    return -SRPT_EINVAL;
  }
  if (ring->posted[index]) {
    fake::record_violation("srpt_k_post_recv(QP #%d, index %u): already posted",
                           qp->serial, index);
    return -SRPT_EINVAL;
  }
  if (int err = fake::injected_call_error(fake::Call::PostRecv)) return err;
  ring->posted[index] = true;
  qp->recvs.push_back(fake::PostedRecv{ring, index, seq});
  return 0;
}

extern "C" int srpt_k_post_send(srpt_k_qp* qp, srpt_k_ring* ring, uint32_t index,
                                uint32_t len) noexcept {
  fake::note_post_stack(__builtin_frame_address(0));
  const uint64_t seq = fake::trace("srpt_k_post_send", qp, index);
  if (!fake::check_send_slot(qp, ring, index, len, "srpt_k_post_send"))
    return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::PostSend)) return err;
  const uint8_t* b = ring->bufs[index].data();
  fake::PostedSend s{fake::PostedSend::Kind::Send, ring, index,
                     std::vector<uint8_t>(b, b + len), nullptr, 0, seq};
  fake::check_sq_room(qp, s);
  ring->posted[index] = true;
  qp->sends.push_back(s);
  qp->sent.push_back(std::move(s));
  return 0;
}

// --- shared receive queues ---------------------------------------------------

extern "C" int srpt_k_srq_create(srpt_k_device* kdev, uint32_t* count,
                                 uint32_t size, uint32_t align_at, srpt_core_srq* ctx,
                                 srpt_k_srq** out) noexcept {
  fake::might_sleep("srpt_k_srq_create");
  fake::trace("srpt_k_srq_create", kdev, *count);
  if (*count == 0) return -SRPT_EINVAL;
  if (int err = fake::creation_error(fake::Call::SrqCreate)) return err;
  // As the shim: lowered to the device's max_srq_wr.
  if (fake::max_srq_wr() != 0 && *count > fake::max_srq_wr()) *count = fake::max_srq_wr();
  srpt_k_ring* ring = nullptr;
  if (int err = srpt_k_ring_create(kdev, *count, size, align_at, SRPT_RING_RECV, &ring))
    return err;
  srpt_k_srq* q = new srpt_k_srq{};
  q->ring = ring;
  q->ctx = ctx;
  q->serial = fake::state().next_serial++;
  for (uint32_t i = 0; i < *count; i++) {
    ring->posted[i] = true;
    q->recvs.push_back(fake::PostedRecv{ring, i, 0});
  }
  fake::state().srqs.push_back(q);
  *out = q;
  return 0;
}

extern "C" srpt_k_ring* srpt_k_srq_ring(srpt_k_srq* srq) noexcept {
  if (!fake::live_srq(srq, "srpt_k_srq_ring")) return nullptr;
  return srq->ring;
}

extern "C" int srpt_k_srq_post_recv(srpt_k_srq* srq, uint32_t index) noexcept {
  const uint64_t seq = fake::trace("srpt_k_srq_post_recv", srq, index);
  if (!fake::live_srq(srq, "srpt_k_srq_post_recv")) return -SRPT_EINVAL;
  if (index >= srq->ring->count) {
    fake::record_violation("srpt_k_srq_post_recv(SRQ #%d, index %u): out of range",
                           srq->serial, index);
    return -SRPT_EINVAL;
  }
  if (srq->ring->posted[index]) {
    fake::record_violation("srpt_k_srq_post_recv(SRQ #%d, index %u): already posted",
                           srq->serial, index);
    return -SRPT_EINVAL;
  }
  if (int err = fake::injected_call_error(fake::Call::SrqPostRecv)) return err;
  srq->ring->posted[index] = true;
  srq->recvs.push_back(fake::PostedRecv{srq->ring, index, seq});
  return 0;
}

extern "C" void srpt_k_srq_destroy(srpt_k_srq* srq) noexcept {
  if (srq == nullptr) return;
  fake::might_sleep("srpt_k_srq_destroy");
  fake::trace("srpt_k_srq_destroy", srq);
  if (!fake::live_srq(srq, "srpt_k_srq_destroy")) return;
  for (srpt_k_qp* qp : fake::state().qps) {
    if (qp->params.srq == srq) {
      fake::record_violation("srpt_k_srq_destroy(SRQ #%d): QP #%d still uses it",
                             srq->serial, qp->serial);
      return;
    }
  }
  // Posted buffers go with the SRQ; a buffer a channel still holds is a
  // leak of the SRQ's capacity, which the channel should have given back.
  uint32_t held = 0;
  for (uint32_t i = 0; i < srq->ring->count; i++) {
    if (!srq->ring->posted[i]) held++;
    srq->ring->posted[i] = false;
  }
  if (held != 0)
    fake::record_violation("srpt_k_srq_destroy(SRQ #%d): %u buffers were never "
                           "given back", srq->serial, held);
  srpt_k_ring_destroy(srq->ring);
  auto& v = fake::state().srqs;
  v.erase(std::find(v.begin(), v.end(), srq));
  delete srq;
}
