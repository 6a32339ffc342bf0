// SPDX-License-Identifier: GPL-2.0
// Command: one command slot of a channel: the shim's se_cmd and RDMA
// contexts (srpt_k_cmd), the parsed request and the send buffer of the
// response (send ring entry `index`).
//
// A slot is Free on the channel's free list, or busy from the request that
// takes it until the target core releases it (release_cmd) or, for requests
// answered without the target core (refusals, task management), until the
// response's send completes. While busy it may hold the receive IU of its
// request (recv_index); that IU is reposted just before the response is
// posted, and a credit is only returned once the IU is back on the queue.
//
// A Submitted command (an SRP_CMD or an SRP_TSK_MGMT handed to the target
// core) ends exactly once, in release_cmd (Channel::on_release), along one
// of two paths that exclude each other:
//   answered  the target core called queue_data_in, queue_status or
//             queue_tm_rsp; we posted the SRP_RSP; its send completion
//             (flushed or not) calls srpt_k_cmd_free(), which drops our
//             reference; release_cmd follows.
//   aborted   an ABORT TASK, a LOGICAL UNIT RESET or a stopping session
//             aborted it before the target core answered: aborted_task,
//             then release_cmd, with no response; the target core dropped
//             our reference itself, so srpt_k_cmd_free() must not be called
//             and is not (only a send completion calls it, and nothing was
//             sent). The request's IU and its credit go back in on_release.
// The target core never aborts a command it has answered (CMD_T_COMPLETE is
// set before the answer), so a command never takes both paths.
#pragma once

#include <srpt/abi/cmd.h>
#include <srpt/core/send_budget.h>
#include <srpt/core/srp_cmd.h>
#include <srpt/core/srp_tsk_mgmt.h>
#include <srpt/rt/list.h>
#include <srpt/rt/types.h>

namespace srpt {

class Channel;

// Its SqClaim base is its share of the channel's send queue (send_budget.h).
class Command : public SqClaim, Pinned {
 public:
  enum class State : u8 {
    Free,        // on the free list
    Fetching,    // its external descriptor table is being read
    Submitted,   // owned by the target core until release_cmd
    RspOnly,     // answered by the channel itself; free when the send completes
  };
  static constexpr u32 kNoRecv = ~u32{0};

  Command(Channel& ch, u32 index) : ch_(ch), index_(index) {}

  Channel& channel() const { return ch_; }
  u32 index() const { return index_; }

  // What a command waiting for send-queue room posts once it has it.
  using SqPost = SqClaim::SqPost;

  // Segments of a command whose descriptors fit here (a direct descriptor,
  // or a table of at most this many entries in the IU: ib_srp sends one
  // descriptor per memory registration, rarely more than a few). A larger
  // table, and every external one, goes to `table`.
  static constexpr u32 kInlineSegs = 8;

  srpt_k_cmd* kcmd = nullptr;
  // The slot's descriptor-table buffer (a ring of one entry of
  // kMaxTableBytes, device-writable): made the first time one of its
  // commands needs it, kept until the channel's resources go (a login makes
  // none; most channels never need one). Only the command that holds the
  // slot touches it.
  srpt_k_ring* table = nullptr;
  srpt_rdma_seg segs_inline[kInlineSegs]{};
  State state = State::Free;
  u32 recv_index = kNoRecv;
  // The request: an SRP_CMD (parsed) or, when is_tmf, an SRP_TSK_MGMT (tmf).
  bool is_tmf = false;
  ParsedCmd parsed{};
  ParsedTskMgmt tmf{};
  ListNode free_node;  // on the channel's SlotPool while free
  u32 rsp_len = 0;     // the built response, for a deferred post
  // Its prepared RDMA contexts (srpt_k_cmd_rdma_prepare), posted in parts
  // of whole contexts in order: rw_next is the first not yet posted,
  // part_ctxs how many the part being posted (or waiting for room) takes.
  // Set with the contexts; meaningless without them.
  u32 rw_ctxs = 0;
  u32 rw_next = 0;
  u32 part_ctxs = 0;
  // The core is done with the contexts (unprepared, or left to the shim).
  void forget_rdma() { rw_ctxs = rw_next = part_ctxs = 0; }

 private:
  Channel& ch_;
  const u32 index_;
};

// The target core's tag: the initiator's 8 opaque bytes, read as a number
// only for its logs and task-management lookups.
inline u64 tag_value(const srp::Tag& t) {
  u64 v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | t.bytes[i];
  return v;
}

}  // namespace srpt
