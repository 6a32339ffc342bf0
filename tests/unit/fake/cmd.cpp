// SPDX-License-Identifier: GPL-2.0
#include "cmd.h"

#include <algorithm>

#include "fault.h"
#include "lock.h"
#include "queue.h"
#include "session.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `cmds` holds exactly the live command contexts, in creation
// order; `active` of each is true from submit to release.
struct CmdState {
  std::vector<srpt_k_cmd*> cmds;
  std::vector<Submission> submissions;
  std::vector<TmfSubmission> tmf_submissions;
  int next_serial = 1;
  // break_next_post(): which call breaks, after how many more of it.
  bool break_armed = false;
  Call break_call = Call::Count;
  uint32_t break_wrs = 0;
  size_t break_skip = 0;
};

CmdState& state() {
  static CmdState* s = new CmdState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

bool live_cmd(const srpt_k_cmd* cmd, const char* op) {
  const auto& v = state().cmds;
  if (std::find(v.begin(), v.end(), cmd) != v.end()) return true;
  record_violation("%s(%p): not a live command", op, static_cast<const void*>(cmd));
  return false;
}

bool check_active(const srpt_k_cmd* cmd, const char* op) {
  if (cmd->active) return true;
  record_violation("%s(command #%d): the target core does not hold this command",
                   op, cmd->serial);
  return false;
}

// A context may be destroyed or given to another slot only once its last
// command was released: the target core holds it no more and its RDMA
// contexts are gone.
void check_released(const srpt_k_cmd* cmd, const char* op) {
  if (cmd->active)
    record_violation("%s(command #%d): the target core still holds it", op, cmd->serial);
  if (cmd->wrs != 0 || !cmd->segs.empty())
    record_violation("%s(command #%d): RDMA contexts left", op, cmd->serial);
}

bool posted_on_qp(const srpt_k_cmd* cmd) {
  for (const PostedSend& s : cmd->qp->sends)
    if (s.cmd == cmd) return true;
  return false;
}

// The target core answers with queue_status (a refusal or a failure).
void target_core_answers(srpt_k_cmd* cmd, uint8_t status) {
  cmd->result = srpt_cmd_result{};
  cmd->result.status = status;
  if (status == 0x02) {  // CHECK CONDITION: ABORTED COMMAND
    std::vector<uint8_t> sense(18, 0);
    sense[0] = 0x70;
    sense[2] = 0x0b;
    sense[7] = 10;
    set_cmd_result(cmd, cmd->result, sense);
  }
  cmd->phase = srpt_k_cmd::Phase::Executing;
  srpt_core_cmd_queue_status(cmd->ctx);
}

// True when this call of `c` is the one break_next_post() armed.
bool post_breaks(Call c) {
  CmdState& st = state();
  if (!st.break_armed || st.break_call != c) return false;
  if (st.break_skip > 0) {
    st.break_skip--;
    return false;
  }
  st.break_armed = false;
  return true;
}

// A chain of `cmd` that the send queue takes in part, as the shim posts
// it (abi/cmd.h, SRPT_K_POST_BROKEN): its first `wrs` work requests
// without a completion of their own, the QP to the error state, and
// behind them one request that carries the chain's completion, `tail`
// (an RDMA part's, or the response's send slot).
int post_broken(srpt_k_cmd* cmd, uint32_t wrs, PostedSend tail) {
  // The shim reports SRPT_K_POST_BROKEN only for a chain whose head the
  // send queue took: a chain of one request, or a post that took none of
  // it, fails with an errno and nothing posted.
  if (wrs == 0)
    record_violation("break_next_post(command #%d): the chain went in part with none of "
                     "it posted (a chain of one request cannot go in part)",
                     cmd->serial);
  if (wrs > 0) {
    PostedSend p{PostedSend::Kind::RdmaWrite, nullptr, 0, {}, cmd, wrs, 0};
    if (tail.kind == PostedSend::Kind::RdmaRead) p.kind = PostedSend::Kind::RdmaRead;
    p.unsignalled = true;
    post_cmd_send(cmd->qp, p);
  }
  trace("srpt_k_qp_error", cmd->qp);
  cmd->qp->error = true;
  tail.rdma_wrs = 0;
  tail.marker = true;
  post_cmd_send(cmd->qp, tail);
  return SRPT_K_POST_BROKEN;
}

void drop_contexts(srpt_k_cmd* cmd) {
  cmd->segs.clear();
  cmd->ctx_wrs.clear();
  cmd->wrs = 0;
  cmd->posted_to = 0;
  cmd->rw_dir = SRPT_DIR_NONE;
}

}  // namespace

void break_next_post(Call c, uint32_t posted_wrs, size_t skip) {
  CmdState& st = state();
  st.break_armed = true;
  st.break_call = c;
  st.break_wrs = posted_wrs;
  st.break_skip = skip;
}

bool cmd_holds_buffers(const srpt_k_cmd* cmd) {
  const auto& v = state().cmds;
  return std::find(v.begin(), v.end(), cmd) != v.end() && cmd->active &&
         !cmd->segs.empty();
}

const std::vector<Submission>& submissions() { return state().submissions; }
const std::vector<TmfSubmission>& tmf_submissions() { return state().tmf_submissions; }

void answer_tmf(srpt_k_cmd* cmd, srpt_tmf_result r) {
  if (!live_cmd(cmd, "answer_tmf") || !check_active(cmd, "answer_tmf")) return;
  if (!cmd->is_tmf) {
    record_violation("answer_tmf(command #%d): not a task management request",
                     cmd->serial);
    return;
  }
  OtherThread target_core;
  trace("answer_tmf", cmd, r);
  cmd->tmf_result = r;
  cmd->phase = srpt_k_cmd::Phase::Executing;
  srpt_core_cmd_queue_tm_rsp(cmd->ctx);
}

srpt_core_cmd* cmd_ctx(const srpt_k_cmd* cmd) { return cmd->ctx; }

void set_cmd_result(srpt_k_cmd* cmd, const srpt_cmd_result& r,
                    const std::vector<uint8_t>& sense, size_t sense_len) {
  cmd->result = r;
  if (sense.size() > kSenseBufferSize || sense_len > kSenseBufferSize) {
    record_violation("set_cmd_result: sense beyond the %zu-byte buffer", kSenseBufferSize);
    return;
  }
  std::copy(sense.begin(), sense.end(), cmd->sense.begin());
  if (sense_len == 0) sense_len = sense.size();
  cmd->result.sense = sense_len == 0 ? nullptr : cmd->sense.data();
  cmd->result.sense_len = static_cast<uint32_t>(sense_len);
}

void complete_rdma_read(srpt_k_cmd* cmd, bool ok) {
  complete_rdma_read_status(cmd, ok ? kWcSuccess : kWcRemAccessErr);
}

void complete_rdma_write(srpt_k_cmd* cmd, bool ok) {
  complete_rdma_read_status(cmd, ok ? kWcSuccess : kWcRemAccessErr);
}

void complete_rdma_read_status(srpt_k_cmd* cmd, int wc_status) {
  if (!live_cmd(cmd, "complete_rdma_read")) return;
  srpt_k_qp* qp = cmd->qp;
  for (size_t i = 0; i < qp->sends.size(); i++) {
    if (qp->sends[i].cmd == cmd && !qp->sends[i].unsignalled &&
        (qp->sends[i].kind == PostedSend::Kind::RdmaRead ||
         qp->sends[i].kind == PostedSend::Kind::RdmaWrite)) {
      complete_send_status(qp, i, wc_status);
      return;
    }
  }
  record_violation("complete_rdma_read(command #%d): no RDMA part is posted",
                   cmd->serial);
}

const PostedSend* posted_fetch(const srpt_k_cmd* cmd) {
  for (const PostedSend& s : cmd->qp->sends)
    if (s.cmd == cmd && s.kind == PostedSend::Kind::Fetch) return &s;
  return nullptr;
}

void complete_fetch(srpt_k_cmd* cmd, const std::vector<uint8_t>& table, bool ok) {
  if (!live_cmd(cmd, "complete_fetch")) return;
  srpt_k_qp* qp = cmd->qp;
  for (size_t i = 0; i < qp->sends.size(); i++) {
    PostedSend& s = qp->sends[i];
    if (s.cmd != cmd || s.kind != PostedSend::Kind::Fetch) continue;
    if (ok) {
      if (table.size() != s.fetch.len)
        record_violation("complete_fetch(command #%d): %zu bytes for a read of %u",
                         cmd->serial, table.size(), s.fetch.len);
      uint8_t* b = srpt_k_ring_buf(s.ring, s.index);
      for (size_t k = 0; k < table.size() && k < s.fetch.len; k++) b[k] = table[k];
    }
    complete_send(qp, i, ok);
    return;
  }
  record_violation("complete_fetch(command #%d): no table read is posted", cmd->serial);
}

void cmd_fetch_completed(srpt_k_cmd* cmd, bool ok) {
  cmd->fetching = false;
  srpt_core_cmd_fetch_done(cmd->ctx, ok ? 1 : 0);
}

void target_core_aborts(srpt_k_cmd* cmd) {
  if (!live_cmd(cmd, "target_core_aborts") || !check_active(cmd, "target_core_aborts"))
    return;
  if (posted_on_qp(cmd))
    record_violation("target_core_aborts(command #%d): its response or RDMA "
                     "reads are posted; the target core waits for those",
                     cmd->serial);
  OtherThread target_core;
  trace("target_core_aborts", cmd);
  srpt_core_cmd_aborted(cmd->ctx);
  drop_contexts(cmd);
  cmd->active = false;
  cmd->phase = srpt_k_cmd::Phase::Idle;
  cmd->releases++;
  cmd->sess->active_cmds--;
  trace("srpt_core_cmd_release", cmd);
  srpt_core_cmd_release(cmd->ctx);
}

size_t live_cmds() { return state().cmds.size(); }
size_t active_cmds() {
  size_t n = 0;
  for (const srpt_k_cmd* c : state().cmds) n += c->active;
  return n;
}

void cmd_rdma_part_completed(srpt_k_cmd* cmd, int wc_status) {
  // The contexts stay: the core posts the next part or unprepares them.
  if (cmd->rw_dir == SRPT_DIR_WRITE) cmd->phase = srpt_k_cmd::Phase::Submitted;
  srpt_core_cmd_rdma_done(cmd->ctx, wc_status);
}

bool finish_one_cmd_of(srpt_k_session* sess) {
  for (srpt_k_cmd* c : state().cmds) {
    if (!c->active || c->sess != sess) continue;
    if (c->phase != srpt_k_cmd::Phase::Submitted &&
        c->phase != srpt_k_cmd::Phase::Executing)
      continue;
    OtherThread backend;
    trace("backend_completes", c);
    c->phase = srpt_k_cmd::Phase::Executing;
    if (c->is_tmf)
      srpt_core_cmd_queue_tm_rsp(c->ctx);
    else
      srpt_core_cmd_queue_status(c->ctx);
    return true;
  }
  return false;
}

std::vector<std::string> cmd_leaks() {
  std::vector<std::string> out;
  for (const srpt_k_cmd* c : state().cmds)
    out.push_back("command context #" + std::to_string(c->serial) +
                  " was never destroyed");
  return out;
}

void reset_cmd() {
  CmdState& s = state();
  for (srpt_k_cmd* c : s.cmds) graveyard().push_back(c);
  s = CmdState{};
}

}  // namespace fake

using fake::PostedSend;

extern "C" int srpt_k_cmd_create(srpt_k_qp* qp, uint32_t port_num,
                                 srpt_core_cmd* ctx, srpt_k_cmd** out) noexcept {
  fake::might_sleep("srpt_k_cmd_create");
  fake::trace("srpt_k_cmd_create", qp);
  if (qp == nullptr) {
    fake::record_violation("srpt_k_cmd_create: no QP");
    return -SRPT_EINVAL;
  }
  if (int err = fake::creation_error(fake::Call::CmdCreate)) return err;
  srpt_k_cmd* c = new srpt_k_cmd{};
  c->qp = qp;
  c->port_num = port_num;
  c->ctx = ctx;
  c->serial = fake::state().next_serial++;
  fake::state().cmds.push_back(c);
  *out = c;
  return 0;
}

extern "C" void srpt_k_cmd_bind(srpt_k_cmd* cmd, srpt_k_qp* qp, uint32_t port_num,
                                srpt_core_cmd* ctx) noexcept {
  fake::trace("srpt_k_cmd_bind", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_bind")) return;
  const auto qps = fake::qps();
  if (std::find(qps.begin(), qps.end(), qp) == qps.end()) {
    fake::record_violation("srpt_k_cmd_bind(command #%d): %p is not a live QP",
                           cmd->serial, static_cast<void*>(qp));
    return;
  }
  fake::check_released(cmd, "srpt_k_cmd_bind");
  // No QP that is still alive may name it: its old QP was destroyed (the
  // fake deletes a QP with its posted work).
  for (const srpt_k_qp* q : qps)
    for (const fake::PostedSend& s : q->sends)
      if (s.cmd == cmd)
        fake::record_violation("srpt_k_cmd_bind(command #%d): work posted on "
                               "QP #%d still names it", cmd->serial, q->serial);
  cmd->qp = qp;
  cmd->port_num = port_num;
  cmd->ctx = ctx;
  cmd->phase = srpt_k_cmd::Phase::Idle;
  cmd->binds++;
}

extern "C" void srpt_k_cmd_destroy(srpt_k_cmd* cmd) noexcept {
  if (cmd == nullptr) return;
  fake::trace("srpt_k_cmd_destroy", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_destroy")) return;
  fake::check_released(cmd, "srpt_k_cmd_destroy");
  auto& v = fake::state().cmds;
  v.erase(std::find(v.begin(), v.end(), cmd));
  fake::graveyard().push_back(cmd);  // posted work may still name it
}

extern "C" int srpt_k_cmd_submit(srpt_k_cmd* cmd, srpt_k_session* sess,
                                 const srpt_cmd_submit* s) noexcept {
  fake::might_sleep("srpt_k_cmd_submit");
  fake::trace("srpt_k_cmd_submit", cmd, static_cast<int64_t>(s->tag));
  if (!fake::live_cmd(cmd, "srpt_k_cmd_submit")) return -SRPT_EINVAL;
  if (cmd->active) {
    fake::record_violation("srpt_k_cmd_submit(command #%d): its previous command "
                           "was not released", cmd->serial);
    return -SRPT_EINVAL;
  }
  const auto all = fake::sessions();
  if (std::find(all.begin(), all.end(), sess) == all.end()) {
    fake::record_violation("srpt_k_cmd_submit(command #%d): %p is not a live "
                           "session", cmd->serial, static_cast<void*>(sess));
    return -SRPT_EINVAL;
  }
  // target_init_cmd() failed (target_get_sess_cmd: the session is
  // stopping): nothing reached the target core.
  if (sess->stopped) return -SRPT_ESHUTDOWN;
  fake::Submission sub{};
  sub.cmd = cmd;
  sub.sess = sess;
  if (s->cdb != nullptr) sub.cdb.assign(s->cdb, s->cdb + s->cdb_len);
  sub.lun = s->lun;
  sub.tag = s->tag;
  sub.data_len = s->data_len;
  sub.dir = s->dir;
  sub.attr = s->attr;
  sub.has_imm = s->imm != nullptr;
  if (s->imm != nullptr) {
    // Immediate data goes to the target core in place: the shim keeps a
    // receive ring's align_at offset sector-aligned, so the data must lie
    // exactly there (a ring made for another offset would hand the
    // backend unaligned segments).
    uint32_t off = 0;
    const srpt_k_ring* r = fake::ring_holding(s->imm, &off);
    if (r == nullptr)
      fake::record_violation("srpt_k_cmd_submit(command #%d): immediate data outside "
                             "every receive buffer", cmd->serial);
    else if (r->align_at != off)
      fake::record_violation("srpt_k_cmd_submit(command #%d): immediate data at offset %u "
                             "of a receive ring aligned for offset %u", cmd->serial, off,
                             r->align_at);
  }
  if (s->imm != nullptr) sub.imm.assign(s->imm, s->imm + s->imm_len);
  fake::state().submissions.push_back(sub);

  cmd->active = true;
  cmd->is_tmf = false;
  cmd->sess = sess;
  cmd->submits++;
  cmd->phase = srpt_k_cmd::Phase::Submitted;
  fake::drop_contexts(cmd);
  // As the shim: the sense buffer starts zeroed for each command.
  std::fill(cmd->sense.begin(), cmd->sense.end(), 0);
  fake::set_cmd_result(cmd, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, s->data_len});
  sess->active_cmds++;
  return 0;
}

extern "C" void srpt_k_cmd_execute(srpt_k_cmd* cmd) noexcept {
  fake::trace("srpt_k_cmd_execute", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_execute") ||
      !fake::check_active(cmd, "srpt_k_cmd_execute"))
    return;
  if (cmd->rw_dir == SRPT_DIR_WRITE && !cmd->segs.empty())
    fake::record_violation("srpt_k_cmd_execute(command #%d): its data-out contexts "
                           "are still mapped (the backend would see stale data)",
                           cmd->serial);
  cmd->executes++;
  cmd->phase = srpt_k_cmd::Phase::Executing;
}

// The names ib_wc_status_msg() gives the statuses the fake produces.
extern "C" const char* srpt_k_wc_status_name(int wc_status) noexcept {
  switch (wc_status) {
    case fake::kWcSuccess: return "success";
    case fake::kWcWrFlushErr: return "WR flushed";
    case fake::kWcRemAccessErr: return "remote access error";
  }
  return "unrecognized status";
}

extern "C" void srpt_k_cmd_fail(srpt_k_cmd* cmd) noexcept {
  fake::trace("srpt_k_cmd_fail", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_fail") ||
      !fake::check_active(cmd, "srpt_k_cmd_fail"))
    return;
  if (fake::posted_on_qp(cmd))
    fake::record_violation("srpt_k_cmd_fail(command #%d): its RDMA is still posted; "
                           "the target core would free the pages it moves",
                           cmd->serial);
  cmd->fails++;
  fake::target_core_answers(cmd, 0x02);
}

extern "C" void srpt_k_cmd_free(srpt_k_cmd* cmd) noexcept {
  fake::trace("srpt_k_cmd_free", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_free") ||
      !fake::check_active(cmd, "srpt_k_cmd_free"))
    return;
  if (fake::posted_on_qp(cmd))
    fake::record_violation("srpt_k_cmd_free(command #%d): its response or RDMA "
                           "reads are still posted", cmd->serial);
  cmd->frees++;
  fake::drop_contexts(cmd);
  // The last reference: release_cmd, right away.
  cmd->active = false;
  cmd->phase = srpt_k_cmd::Phase::Idle;
  cmd->releases++;
  cmd->sess->active_cmds--;
  fake::trace("srpt_core_cmd_release", cmd);
  srpt_core_cmd_release(cmd->ctx);
}

extern "C" int srpt_k_cmd_rdma_prepare(srpt_k_cmd* cmd, srpt_data_dir dir,
                                       const srpt_rdma_seg* segs,
                                       uint32_t count) noexcept {
  fake::trace("srpt_k_cmd_rdma_prepare", cmd, count);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_rdma_prepare") ||
      !fake::check_active(cmd, "srpt_k_cmd_rdma_prepare"))
    return -SRPT_EINVAL;
  if (!cmd->segs.empty())
    fake::record_violation("srpt_k_cmd_rdma_prepare(command #%d): contexts are "
                           "already prepared", cmd->serial);
  if (dir != SRPT_DIR_READ && dir != SRPT_DIR_WRITE) return -SRPT_EINVAL;
  if (count > SRPT_K_MAX_RDMA_SEGS) return -SRPT_EINVAL;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; i++) total += segs[i].len;
  if (total > cmd->result.data_len) return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::CmdRdmaPrepare)) return err;
  fake::drop_contexts(cmd);
  for (uint32_t i = 0; i < count; i++) {
    if (segs[i].len == 0) continue;
    const uint32_t w = (segs[i].len + fake::kFakeBytesPerWr - 1) / fake::kFakeBytesPerWr;
    cmd->segs.push_back(segs[i]);
    cmd->ctx_wrs.push_back(w);
    cmd->wrs += w;
  }
  cmd->rw_dir = dir;
  return static_cast<int>(cmd->wrs);
}

extern "C" uint32_t srpt_k_cmd_rdma_ctxs(srpt_k_cmd* cmd) noexcept {
  if (!fake::live_cmd(cmd, "srpt_k_cmd_rdma_ctxs")) return 0;
  return static_cast<uint32_t>(cmd->ctx_wrs.size());
}

extern "C" uint32_t srpt_k_cmd_rdma_ctx_wrs(srpt_k_cmd* cmd, uint32_t i) noexcept {
  if (!fake::live_cmd(cmd, "srpt_k_cmd_rdma_ctx_wrs")) return 0;
  if (i >= cmd->ctx_wrs.size()) {
    fake::record_violation("srpt_k_cmd_rdma_ctx_wrs(command #%d): context %u of %zu",
                           cmd->serial, i, cmd->ctx_wrs.size());
    return 0;
  }
  return cmd->ctx_wrs[i];
}

namespace fake {
namespace {
// A part of contexts [first, first + count) of `cmd`, posted in `dir`: the
// violations a real post would turn into corruption or a hang. Its work
// requests, or -1.
int64_t rdma_part(srpt_k_cmd* cmd, uint32_t first, uint32_t count, srpt_data_dir dir,
                  const char* op) {
  if (!live_cmd(cmd, op) || !check_active(cmd, op)) return -1;
  if (cmd->segs.empty() || cmd->rw_dir != dir) {
    record_violation("%s(command #%d): no such contexts prepared", op, cmd->serial);
    return -1;
  }
  if (count == 0 || first != cmd->posted_to || first + count > cmd->ctx_wrs.size()) {
    record_violation("%s(command #%d): contexts [%u, +%u) out of order (next %u of %zu)",
                     op, cmd->serial, first, count, cmd->posted_to, cmd->ctx_wrs.size());
    return -1;
  }
  for (const PostedSend& s : cmd->qp->sends)
    if (s.cmd == cmd && (s.kind == PostedSend::Kind::RdmaRead ||
                         s.kind == PostedSend::Kind::RdmaWrite))
      record_violation("%s(command #%d): its previous part is still posted", op,
                       cmd->serial);
  int64_t wrs = 0;
  for (uint32_t i = first; i < first + count; i++) wrs += cmd->ctx_wrs[i];
  return wrs;
}
}  // namespace
}  // namespace fake

extern "C" void srpt_k_cmd_rdma_unprepare(srpt_k_cmd* cmd) noexcept {
  fake::trace("srpt_k_cmd_rdma_unprepare", cmd);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_rdma_unprepare")) return;
  if (fake::posted_on_qp(cmd))
    fake::record_violation("srpt_k_cmd_rdma_unprepare(command #%d): work is posted",
                           cmd->serial);
  fake::drop_contexts(cmd);
}

extern "C" int srpt_k_cmd_rdma_read(srpt_k_cmd* cmd, uint32_t first,
                                    uint32_t count) noexcept {
  fake::note_post_stack(__builtin_frame_address(0));
  fake::trace("srpt_k_cmd_rdma_read", cmd, first);
  const int64_t wrs = fake::rdma_part(cmd, first, count, SRPT_DIR_WRITE, "srpt_k_cmd_rdma_read");
  if (wrs < 0) return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::CmdRdmaRead)) {
    fake::drop_contexts(cmd);  // nothing was posted
    return err;
  }
  cmd->phase = srpt_k_cmd::Phase::RdmaReading;
  cmd->posted_to += count;
  cmd->parts++;
  PostedSend p{PostedSend::Kind::RdmaRead, nullptr, 0, {}, cmd,
               static_cast<uint32_t>(wrs), 0};
  p.first_ctx = first;
  p.ctxs = count;
  if (fake::post_breaks(fake::Call::CmdRdmaRead))
    return fake::post_broken(
        cmd, std::min<uint32_t>(fake::state().break_wrs, static_cast<uint32_t>(wrs) - 1), p);
  fake::post_cmd_send(cmd->qp, p);
  return 0;
}

extern "C" int srpt_k_cmd_rdma_write(srpt_k_cmd* cmd, uint32_t first,
                                     uint32_t count) noexcept {
  fake::note_post_stack(__builtin_frame_address(0));
  fake::trace("srpt_k_cmd_rdma_write", cmd, first);
  const int64_t wrs = fake::rdma_part(cmd, first, count, SRPT_DIR_READ, "srpt_k_cmd_rdma_write");
  if (wrs < 0) return -SRPT_EINVAL;
  // Nothing posted; the contexts stay with the command.
  if (int err = fake::injected_call_error(fake::Call::CmdRdmaWrite)) return err;
  cmd->posted_to += count;
  cmd->parts++;
  PostedSend p{PostedSend::Kind::RdmaWrite, nullptr, 0, {}, cmd,
               static_cast<uint32_t>(wrs), 0};
  p.first_ctx = first;
  p.ctxs = count;
  if (fake::post_breaks(fake::Call::CmdRdmaWrite))
    return fake::post_broken(
        cmd, std::min<uint32_t>(fake::state().break_wrs, static_cast<uint32_t>(wrs) - 1), p);
  fake::post_cmd_send(cmd->qp, p);
  return 0;
}

extern "C" int srpt_k_cmd_fetch(srpt_k_cmd* cmd, srpt_k_ring* ring, uint32_t index,
                                uint64_t va, uint32_t rkey, uint32_t len) noexcept {
  fake::note_post_stack(__builtin_frame_address(0));
  fake::trace("srpt_k_cmd_fetch", cmd, index);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_fetch")) return -SRPT_EINVAL;
  if (cmd->active)
    fake::record_violation("srpt_k_cmd_fetch(command #%d): the target core holds "
                           "the command; tables are read before submission",
                           cmd->serial);
  if (cmd->fetching) {
    fake::record_violation("srpt_k_cmd_fetch(command #%d): a table read is "
                           "already posted", cmd->serial);
    return -SRPT_EINVAL;
  }
  if (ring == nullptr || ring->dir != SRPT_RING_RECV || index >= ring->count ||
      len == 0 || len > ring->size) {
    fake::record_violation("srpt_k_cmd_fetch(command #%d): bad landing buffer "
                           "(index %u, len %u)", cmd->serial, index, len);
    return -SRPT_EINVAL;
  }
  if (int err = fake::injected_call_error(fake::Call::CmdFetch)) return err;
  cmd->fetching = true;
  cmd->fetches++;
  PostedSend s{PostedSend::Kind::Fetch, ring, index, {}, cmd, 1, 0};
  s.fetch.va = va;
  s.fetch.rkey = rkey;
  s.fetch.len = len;
  // The landing buffer is the device's until the read completes, but a
  // receive ring's posted[] tracks receive posts: leave it alone.
  s.ring = nullptr;
  fake::post_cmd_send(cmd->qp, s);
  cmd->qp->sends.back().ring = ring;
  cmd->qp->sent.back().ring = ring;
  return 0;
}

extern "C" int srpt_k_cmd_send_rsp(srpt_k_cmd* cmd, srpt_k_ring* ring,
                                   uint32_t index, uint32_t len,
                                   uint32_t first) noexcept {
  fake::note_post_stack(__builtin_frame_address(0));
  fake::trace("srpt_k_cmd_send_rsp", cmd, index);
  if (!fake::live_cmd(cmd, "srpt_k_cmd_send_rsp") ||
      !fake::check_active(cmd, "srpt_k_cmd_send_rsp"))
    return -SRPT_EINVAL;
  if (!fake::check_send_slot(cmd->qp, ring, index, len, "srpt_k_cmd_send_rsp"))
    return -SRPT_EINVAL;
  if (int err = fake::injected_call_error(fake::Call::CmdSendRsp)) return err;
  const uint8_t* b = srpt_k_ring_buf(ring, index);
  uint32_t writes = 0;
  if (cmd->rw_dir == SRPT_DIR_READ && !cmd->segs.empty()) {
    if (first != cmd->posted_to || first > cmd->ctx_wrs.size())
      fake::record_violation("srpt_k_cmd_send_rsp(command #%d): writes from context %u, "
                             "next unposted %u of %zu", cmd->serial, first,
                             cmd->posted_to, cmd->ctx_wrs.size());
    for (size_t i = first; i < cmd->ctx_wrs.size(); i++) writes += cmd->ctx_wrs[i];
    for (const PostedSend& p : cmd->qp->sends)
      if (p.cmd == cmd && p.kind == PostedSend::Kind::RdmaWrite)
        fake::record_violation("srpt_k_cmd_send_rsp(command #%d): a part of its writes "
                               "is still posted", cmd->serial);
    cmd->posted_to = static_cast<uint32_t>(cmd->ctx_wrs.size());
  }
  cmd->phase = srpt_k_cmd::Phase::RspPosted;
  PostedSend rsp{PostedSend::Kind::CmdRsp, ring, index, std::vector<uint8_t>(b, b + len),
                 cmd, writes, 0};
  // Some of the writes in front went, the response did not: its send slot
  // carries the chain's completion.
  if (fake::post_breaks(fake::Call::CmdSendRsp))
    return fake::post_broken(cmd, std::min(fake::state().break_wrs, writes), rsp);
  fake::post_cmd_send(cmd->qp, rsp);
  return 0;
}

extern "C" void srpt_k_cmd_result(srpt_k_cmd* cmd, srpt_cmd_result* out) noexcept {
  if (!fake::live_cmd(cmd, "srpt_k_cmd_result")) {
    *out = srpt_cmd_result{};
    return;
  }
  *out = cmd->result;
}

extern "C" int srpt_k_cmd_submit_tmf(srpt_k_cmd* cmd, srpt_k_session* sess,
                                     const srpt_tmf_submit* s) noexcept {
  fake::might_sleep("srpt_k_cmd_submit_tmf");
  fake::trace("srpt_k_cmd_submit_tmf", cmd, static_cast<int64_t>(s->func));
  if (!fake::live_cmd(cmd, "srpt_k_cmd_submit_tmf")) return -SRPT_EINVAL;
  if (cmd->active) {
    fake::record_violation("srpt_k_cmd_submit_tmf(command #%d): its previous "
                           "command was not released", cmd->serial);
    return -SRPT_EINVAL;
  }
  const auto all = fake::sessions();
  if (std::find(all.begin(), all.end(), sess) == all.end()) {
    fake::record_violation("srpt_k_cmd_submit_tmf(command #%d): %p is not a live "
                           "session", cmd->serial, static_cast<void*>(sess));
    return -SRPT_EINVAL;
  }
  if (s->func < SRPT_TMF_ABORT_TASK || s->func > SRPT_TMF_CLEAR_ACA)
    fake::record_violation("srpt_k_cmd_submit_tmf(command #%d): function %d",
                           cmd->serial, static_cast<int>(s->func));
  if (int err = fake::injected_call_error(fake::Call::CmdSubmitTmf)) return err;
  if (sess->stopped) return -SRPT_ESHUTDOWN;  // target_get_sess_cmd() failed
  fake::state().tmf_submissions.push_back(
      fake::TmfSubmission{cmd, sess, s->func, s->lun, s->tag, s->ref_tag});
  cmd->active = true;
  cmd->is_tmf = true;
  cmd->tmf_result = SRPT_TMF_RESULT_COMPLETE;
  cmd->sess = sess;
  cmd->submits++;
  cmd->phase = srpt_k_cmd::Phase::Submitted;
  fake::drop_contexts(cmd);
  sess->active_cmds++;
  return 0;
}

extern "C" srpt_tmf_result srpt_k_cmd_tmf_result(srpt_k_cmd* cmd) noexcept {
  if (!fake::live_cmd(cmd, "srpt_k_cmd_tmf_result") ||
      !fake::check_active(cmd, "srpt_k_cmd_tmf_result"))
    return SRPT_TMF_RESULT_FAILED;
  if (!cmd->is_tmf) {
    fake::record_violation("srpt_k_cmd_tmf_result(command #%d): not a task "
                           "management request", cmd->serial);
    return SRPT_TMF_RESULT_FAILED;
  }
  return cmd->tmf_result;
}
