// SPDX-License-Identifier: GPL-2.0
// The fake queues (include/srpt/abi/queue.h): QPs and IU rings.
//
// Nothing completes by itself. The fake records what the core posts (receive
// indices; sends with a copy of the bytes at post time) and the test
// completes them in the CQ's place: deliver_recv() puts an IU into the oldest
// posted receive buffer and calls srpt_core_recv_done(), complete_send()
// calls srpt_core_send_done(). A QP in the error state (srpt_k_qp_error)
// owes a flush completion for everything posted on it; those are delivered
// by flush_qp(), by the fake's waits (loop.h) and by srpt_k_qp_destroy(),
// which, like ib_drain_qp(), flushes all that is still posted before it
// returns. Completions run as another kernel thread (thread.h).
//
// Violations: posting a receive that is already posted, a send slot whose
// previous send has not completed, a length of 0 or beyond the buffer, a
// ring of the wrong direction; a ring index out of range; destroying a ring
// with buffers still posted, a QP from its own completion, or a QP whose
// cm_id is gone; any use of a dead object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <srpt/abi/cmd.h>
#include <srpt/abi/queue.h>

struct srpt_k_cmd;

struct srpt_k_ring {
  srpt_k_device* kdev;
  uint32_t count;
  uint32_t size;
  uint32_t align_at;  // the offset the shim keeps sector-aligned (placement)
  srpt_ring_dir dir;
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<bool> posted;  // RECV: on some QP's receive queue; SEND: in flight
};

namespace fake {

struct PostedRecv {
  srpt_k_ring* ring;
  uint32_t index;
  uint64_t seq;  // trace seq of the post
};

// A send work request: a plain srpt_k_post_send, a response of a command
// (srpt_k_cmd_send_rsp, with the RDMA writes chained in front of it), a part
// of the RDMA reads or writes of a command (srpt_k_cmd_rdma_read,
// srpt_k_cmd_rdma_write; no ring; first_ctx/ctxs: its contexts), or the read of a
// descriptor table (srpt_k_cmd_fetch; ring/index: where it lands, bytes: the
// remote va, rkey and len as the test sees them in `fetch`).
struct PostedSend {
  enum class Kind { Send, CmdRsp, RdmaRead, RdmaWrite, Fetch } kind;
  srpt_k_ring* ring;
  uint32_t index;
  std::vector<uint8_t> bytes;  // the buffer's first `len` bytes at post time
  srpt_k_cmd* cmd;
  uint32_t rdma_wrs;           // RDMA work requests chained to it
  uint64_t seq;
  struct {
    uint64_t va;
    uint32_t rkey;
    uint32_t len;
  } fetch{};
  uint32_t first_ctx = 0;
  uint32_t ctxs = 0;
  // Work requests posted without a completion of their own: the prefix of
  // a chain whose post failed part-way (break_next_post). They complete
  // with nothing, only as the send queue moves past them; flushed, they
  // still read or write the command's buffers, which must be there then.
  bool unsignalled = false;
  // The request the shim posts behind such a prefix, into the error
  // state, carrying the chain's completion; not an IU the initiator gets
  // (not in `sent`).
  bool marker = false;
};

}  // namespace fake

// A shared receive queue: its own ring, receives posted on it (not on any
// QP). A QP in the error state does not flush them; a QP made with it takes
// its receives from here (deliver_recv) and may not post its own.
struct srpt_k_srq {
  srpt_k_ring* ring;
  srpt_core_srq* ctx;  // given back with its events
  std::deque<fake::PostedRecv> recvs;  // oldest first
  int serial;
};

struct srpt_k_qp {
  srpt_cm_kind kind;
  srpt_k_cm* cm;
  srpt_k_device* kdev;
  uint32_t port_num;
  srpt_qp_params params;
  int serial;
  bool ready = false;   // srpt_k_qp_ready
  bool error = false;   // srpt_k_qp_error / drained
  int in_completion = 0;
  std::deque<fake::PostedRecv> recvs;   // posted, oldest first
  // SRQ buffers the device took for this QP (take_srq_recv) whose
  // completion it has not delivered yet, with the IU's length.
  std::deque<std::pair<fake::PostedRecv, uint32_t>> late_recvs;
  std::deque<fake::PostedSend> sends;   // posted, oldest first
  std::vector<fake::PostedSend> sent;   // every send ever posted, in order
};

namespace fake {

size_t live_qps();
size_t live_rings();
size_t live_srqs();
std::vector<srpt_k_srq*> srqs();  // live, in creation order
std::vector<srpt_k_qp*> qps();  // live, in creation order
// The live QP made on `cm`, or nullptr.
srpt_k_qp* qp_of(const srpt_k_cm* cm);

// A receive completion for the oldest posted receive of `qp` (of its SRQ,
// when it has one): the IU is copied into its buffer (at most the buffer's
// size) and the core is told.
// Returns the receive index; a violation when nothing is posted.
uint32_t deliver_recv(srpt_k_qp* qp, const std::vector<uint8_t>& iu);
// An error completion for the oldest posted receive.
uint32_t fail_recv(srpt_k_qp* qp);
// Work completion statuses, as the kernel's enum ib_wc_status numbers them
// (the ones the fake produces).
constexpr int kWcSuccess = SRPT_WC_SUCCESS;
constexpr int kWcWrFlushErr = SRPT_WC_WR_FLUSH_ERR;  // a QP in error flushes
constexpr int kWcRemAccessErr = 10;  // IB_WC_REM_ACCESS_ERR: what !ok stands for

// A QP on an SRQ: the device takes the oldest SRQ buffer for `qp` and writes
// the IU into it, but its completion comes later (complete_late_recv), as
// for an IU whose packets were still arriving when the QP went to the error
// state. The QP must not be in the error state yet. Returns the index.
uint32_t take_srq_recv(srpt_k_qp* qp, const std::vector<uint8_t>& iu);
// Delivers the oldest such completion: `ok` the IU, else a flush error; in
// any QP state. srpt_k_qp_destroy() delivers those still owed after the
// send queue's drain (what the CQ's poll work may do while the destroy
// runs) and before the QP goes. Returns the index; a violation when none.
uint32_t complete_late_recv(srpt_k_qp* qp, bool ok = true);
// Completes posted send `n` (0: the oldest) of `qp`. Returns its ring index.
// A failed one (!ok) completes with kWcRemAccessErr.
uint32_t complete_send(srpt_k_qp* qp, size_t n = 0, bool ok = true);
// The same, with the completion's ib_wc_status.
uint32_t complete_send_status(srpt_k_qp* qp, size_t n, int wc_status);
// An asynchronous event of `qp`, as the device's event handler delivers it:
// on another thread, in atomic context (a spinlock is held around it, so
// anything that sleeps is a violation).
void qp_event(srpt_k_qp* qp, srpt_qp_event ev, const char* name);
// The device driver raises an asynchronous event of the SRQ, in atomic
// context (srpt_core_srq_event).
void srq_event(srpt_k_srq* srq, srpt_srq_event ev);
// Delivers one flush completion (oldest post first) of a QP in the error
// state; false when there is nothing to flush.
bool flush_one(srpt_k_qp* qp);
// Every flush completion owed by `qp`; returns how many.
size_t flush_qp(srpt_k_qp* qp);
// One flush completion of any QP in the error state.
bool flush_any();

// The device limit on an SRQ's buffers (0: none): srpt_k_srq_create
// lowers its count to it, as the shim lowers it to max_srq_wr.
void set_max_srq_wr(uint32_t n);
uint32_t max_srq_wr();

// The live ring one of whose buffers holds `p`, and p's offset in it.
const srpt_k_ring* ring_holding(const uint8_t* p, uint32_t* offset);

std::vector<std::string> queue_leaks();
void reset_queue();

// For the command fake (cmd.cpp).
// Checks a response's send slot as srpt_k_post_send() does (violations).
bool check_send_slot(srpt_k_qp* qp, srpt_k_ring* ring, uint32_t index,
                     uint32_t len, const char* op);
// A violation when `s` would overfill the send queue, in any QP state: a
// QP in the error state refuses a post beyond its depth like any other.
void check_sq_room(srpt_k_qp* qp, const PostedSend& s);
// The stack depth of every post call (srpt_k_post_send, srpt_k_cmd_*
// posts) is recorded: post_stack_span() is how far apart in bytes the
// deepest and the shallowest were since reset_post_stack(), so a test can
// tell a loop that posts waiters one after another from a recursion that
// goes one frame deeper per waiter.
void note_post_stack(const void* frame);
void reset_post_stack();
size_t post_stack_span();
// Posts a command's send work request (s.seq is set here).
void post_cmd_send(srpt_k_qp* qp, PostedSend s);

}  // namespace fake
