// SPDX-License-Identifier: GPL-2.0
// Channel, the send queue and RDMA (channel.h): send-queue room
// (SendBudget), descriptor table reads, data-out reads, data-in writes and
// the target core's answers that carry data.
//
// Relies on:
// - A command posts one chain at a time, and only with its whole chain's
//   room reserved (sq_reserve); the room comes back when the chain's last
//   completion arrives (sq_return, or on_send for a response), in every
//   state of the channel: a closing channel's QP stays live until the
//   release work moves it to the error state. Waiters post in arrival
//   order, one after another in one loop (sq_resume), without lock_.
// - A chain the send queue took in part (SRPT_K_POST_BROKEN, abi/cmd.h)
//   completes later, flushed, like one posted whole into a QP that then
//   failed: the command keeps its room, its buffer and its contexts until
//   that completion, and ends along the flushed path. The channel closes.
// - RDMA goes in parts of whole contexts (one per remote segment), each
//   posted after the previous part completed: a command's transfer may
//   need more work requests than the queue holds (ib_srp with 255
//   segments: about 260), while each context fits it. So the queue is
//   sized for the slots plus one large context (send_queue.h), not plus
//   the largest command. A command whose whole chain fits goes in one part
//   (or, data-in, in one chain with its response), as before.
// - A context longer than the whole send queue is never reserved: the
//   command is refused before (on_write_pending, on_queue_data_in).
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

namespace srpt {

// --- send-queue room --------------------------------------------------------

bool Channel::sq_reserve(Command& c, u32 need, Command::SqPost what) {
  SpinGuard g(lock_);
  return sq_.reserve(c, need, what);
}

void Channel::sq_return(Command& c) {
  {
    SpinGuard g(lock_);
    sq_.give_back(c);
  }
  sq_resume();
}

void Channel::sq_resume() {
  {
    // One loop resumes at a time. A post that fails inside it gives its
    // room back and calls here again: that call returns at once, and the
    // loop takes the room on its next turn. The loop stops only when,
    // under the lock, nobody waiting fits; room given back after that
    // finds resuming_ clear and starts a loop of its own.
    SpinGuard g(lock_);
    if (resuming_) return;
    resuming_ = true;
  }
  for (;;) {
    Command* c;
    Command::SqPost what = Command::SqPost::None;
    {
      SpinGuard g(lock_);
      // Every claim on sq_ is a Command's (its base).
      c = static_cast<Command*>(sq_.next(&what));
      if (c == nullptr) {
        resuming_ = false;
        return;
      }
    }
    switch (what) {
      case Command::SqPost::Fetch: post_fetch(*c); break;
      case Command::SqPost::Read: (void)post_read(*c, true); break;
      case Command::SqPost::Write: post_write(*c); break;
      case Command::SqPost::Rsp: post_rsp(*c); break;
      case Command::SqPost::None: break;  // SendBudget::next reported it
    }
  }
}

// --- descriptor tables ------------------------------------------------------

srpt_rdma_seg* Channel::table_store(Command& c) {
  if (c.table == nullptr) {
    srpt_k_ring* table = nullptr;
    if (srpt_k_ring_create(cfg_.kdev, 1, kMaxTableBytes, 0, SRPT_RING_RECV, &table) != 0)
      return nullptr;
    c.table = table;
  }
  return reinterpret_cast<srpt_rdma_seg*>(srpt_k_ring_buf(c.table, 0));
}

void Channel::post_fetch(Command& c) {
  const ExternalTable& t = c.parsed.ext;
  const int ret = srpt_k_cmd_fetch(c.kcmd, c.table, 0, t.va, t.rkey, t.len);
  if (ret != 0) {
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: posting a descriptor table read failed (%d)\n",
               sess_name_.c_str(), ret);
    sq_return(c);
    refuse(c, c.parsed.tag, CmdRefusal::TableFetchFailed);
  }
}

void Channel::on_fetch_done(Command& c, bool ok) {
  if (SRPT_CHECK_FAILED(c.state == Command::State::Fetching)) return;
  sq_return(c);
  // A failed read leaves the QP in the error state: the channel goes.
  if (!ok) close(CloseReason::QueueError);
  // Going on submits and posts: a dispatch, inside the gate. A closing
  // channel submits nothing more.
  bool go = gate_.enter();
  if (go && state() >= State::Closing) {
    gate_.leave();
    go = false;
  }
  if (!go) {
    // No answer can reach the initiator any more, and this may be the
    // flush that the release work's QP destruction waits for (the QP is no
    // longer ours to post on): the slot just goes back, its IU is not
    // reposted (on an SRQ it goes back to the SRQ), and no longer counts
    // as held. The command never reached the target core.
    const u32 index = exchange(c.recv_index, Command::kNoRecv);
    if (index != Command::kNoRecv) {
      if (srq_ != nullptr) {
        give_back(index);
      } else {
        SpinGuard g(lock_);
        ius_.release_buffer();
      }
    }
    c.state = Command::State::RspOnly;
    on_release(c);
    return;
  }
  submit_fetched(c);
  gate_.leave();
}

// --- data transfer -------------------------------------------------------------

namespace {

// Cuts the remote segments down, in place, to those covering the first
// `limit` bytes: the target core may move less than the descriptors offer
// (the CDB asked for less). Idempotent, so a retried callback (queue full)
// clips again to the same result.
u32 clip_segs(ParsedCmd& p, u32 limit) {
  u32 n = 0;
  for (u32 i = 0; i < p.nsegs && limit > 0; i++) {
    srpt_rdma_seg s = p.segs[i];
    if (s.len > limit) s.len = limit;
    limit -= s.len;
    if (s.len > 0) p.segs[n++] = s;
  }
  p.nsegs = n;
  return n;
}

RspFields fields_of(const Command& c, const srpt_cmd_result& r) {
  RspFields f{};
  f.tag = c.parsed.tag;
  f.status = r.status;
  f.dir = c.parsed.dir;
  f.underflow = r.underflow != 0;
  f.overflow = r.overflow != 0;
  f.residual = r.residual;
  f.sense = r.sense;
  f.sense_len = built_sense_len(r.sense, r.sense_len);
  return f;
}

}  // namespace

u32 Channel::rdma_prepared(Command& c) {
  c.rw_ctxs = srpt_k_cmd_rdma_ctxs(c.kcmd);
  c.rw_next = 0;
  c.part_ctxs = 0;
  u32 largest = 0;
  for (u32 i = 0; i < c.rw_ctxs; i++) largest = max(largest, srpt_k_cmd_rdma_ctx_wrs(c.kcmd, i));
  return largest;
}

void Channel::rdma_unprepare(Command& c) {
  srpt_k_cmd_rdma_unprepare(c.kcmd);
  c.forget_rdma();
}

u32 Channel::next_part(Command& c, u32 room) {
  u32 wrs = 0, n = 0;
  for (u32 i = c.rw_next; i < c.rw_ctxs; i++, n++) {
    const u32 w = srpt_k_cmd_rdma_ctx_wrs(c.kcmd, i);
    if (n > 0 && wrs + w > room) break;
    wrs += w;
  }
  c.part_ctxs = n;
  return wrs;
}

u32 Channel::wrs_left(const Command& c) const {
  u32 wrs = 0;
  for (u32 i = c.rw_next; i < c.rw_ctxs; i++) wrs += srpt_k_cmd_rdma_ctx_wrs(c.kcmd, i);
  return wrs;
}

void Channel::note_split(u32 wrs) {
  u32 n;
  {
    SpinGuard g(lock_);
    n = ++split_;
  }
  if (n == 1)
    srpt_log(SRPT_LOG_INFO,
             "channel %s: first transfer longer than the send queue (%u work requests, "
             "queue holds %u), posted in parts\n",
             sess_name_.c_str(), wrs, sq_depth_);
}

void Channel::log_context_too_long(u32 wrs) {
  if (log_admit())
    srpt_log(SRPT_LOG_WARNING,
             "channel %s: command needs %u send work requests for one segment, "
             "queue holds %u\n",
             sess_name_.c_str(), wrs, sq_depth_);
}

int Channel::on_write_pending(Command& c) {
  if (c.parsed.imm != nullptr) {
    // The data came with the request.
    srpt_k_cmd_execute(c.kcmd);
    return 0;
  }
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  const u32 n = clip_segs(c.parsed, r.data_len);
  const int wrs = srpt_k_cmd_rdma_prepare(c.kcmd, SRPT_DIR_WRITE, c.parsed.segs, n);
  if (wrs == -SRPT_ENOSPC) {
    // Never mappable on this QP (abi/cmd.h): the target core fails it.
    log_too_many_registrations(n);
    return -SRPT_EINVAL;
  }
  if (wrs < 0) return wrs;  // the target core retries (queue full) or fails it
  // Each part must fit the send queue, so each context must: a command
  // with one longer could never be posted; the target core fails it.
  const u32 largest = rdma_prepared(c);
  if (largest > sq_depth_) {
    rdma_unprepare(c);
    log_context_too_long(largest);
    return -SRPT_EINVAL;
  }
  if (static_cast<u32>(wrs) > sq_depth_) note_split(static_cast<u32>(wrs));
  if (!sq_reserve(c, next_part(c, sq_depth_), Command::SqPost::Read)) return 0;
  return post_read(c, false);
}

// Posts the next part of the data-out reads (room reserved). The first
// part, from write_pending, returns an error to the target core (which
// retries or fails the command); a later or deferred one fails the command.
int Channel::post_read(Command& c, bool deferred) {
  // Advanced before the post: the part's completion may run on another CPU
  // (the CQ's work) before the post returns, and go on from rw_next.
  const u32 first = c.rw_next;
  c.rw_next += c.part_ctxs;
  const int ret = srpt_k_cmd_rdma_read(c.kcmd, first, c.part_ctxs);
  if (ret == 0) return 0;
  if (ret == SRPT_K_POST_BROKEN) {
    // Its flushed completion fails the command (on_rdma_done).
    close(CloseReason::QueueError);
    return 0;
  }
  sq_return(c);
  // The shim dropped the contexts if it posted none of the part, else
  // they stay until the command is freed; the core is done with them.
  c.forget_rdma();
  if (!deferred) return ret;
  close(CloseReason::QueueError);
  srpt_k_cmd_fail(c.kcmd);
  return 0;
}

void Channel::on_rdma_done(Command& c, int wc_status) {
  sq_return(c);
  if (c.parsed.dir == SRPT_DIR_READ) {
    on_write_done(c, wc_status);
    return;
  }
  if (wc_status == SRPT_WC_SUCCESS && c.rw_next < c.rw_ctxs) {
    // The next part. A closing channel posts it too: the QP flushes it,
    // and its completion fails the command like any flush.
    if (sq_reserve(c, next_part(c, sq_depth_), Command::SqPost::Read)) (void)post_read(c, true);
    return;
  }
  // Every part is done (or failed): unmapping hands the data to the CPU
  // before the backend may see it.
  rdma_unprepare(c);
  if (wc_status == SRPT_WC_SUCCESS) {
    srpt_k_cmd_execute(c.kcmd);
    return;
  }
  // A flush is no failure of its own: the QP went to the error state
  // because the channel closes, and the close logs why.
  if (wc_status != SRPT_WC_WR_FLUSH_ERR && log_admit())
    srpt_log(SRPT_LOG_WARNING, "channel %s: RDMA read failed: %s (%d), tag 0x%llx\n",
             sess_name_.c_str(), srpt_k_wc_status_name(wc_status), wc_status,
             static_cast<unsigned long long>(tag_value(c.parsed.tag)));
  srpt_k_cmd_fail(c.kcmd);
}

void Channel::continue_data_in(Command& c) {
  const u32 left = wrs_left(c);
  if (left + 1 <= sq_depth_) {
    // The rest goes chained in front of the response.
    if (sq_reserve(c, left + 1, Command::SqPost::Rsp)) post_rsp(c);
    return;
  }
  if (sq_reserve(c, next_part(c, sq_depth_), Command::SqPost::Write)) post_write(c);
}

// Posts the next part of the data-in writes (room reserved).
void Channel::post_write(Command& c) {
  // Advanced before the post, as in post_read.
  const u32 first = c.rw_next;
  c.rw_next += c.part_ctxs;
  const int ret = srpt_k_cmd_rdma_write(c.kcmd, first, c.part_ctxs);
  if (ret == 0) return;
  if (ret == SRPT_K_POST_BROKEN) {
    // Its flushed completion ends the command (on_write_done).
    close(CloseReason::QueueError);
    return;
  }
  // No completion will come for it: the command ends here, unanswered,
  // as when its response cannot be posted (post_rsp).
  sq_return(c);
  close(CloseReason::QueueError);
  finish(c);
  process_waiting();
}

void Channel::on_write_done(Command& c, int wc_status) {
  if (wc_status == SRPT_WC_SUCCESS) {
    // A closing channel goes on too: the QP flushes the rest and the
    // response, whose completion ends the command.
    continue_data_in(c);
    return;
  }
  // The QP is in the error state: no response can reach the initiator.
  // The command ends unanswered, as when its response's send fails.
  if (wc_status != SRPT_WC_WR_FLUSH_ERR && log_admit())
    srpt_log(SRPT_LOG_WARNING, "channel %s: RDMA write failed: %s (%d), tag 0x%llx\n",
             sess_name_.c_str(), srpt_k_wc_status_name(wc_status), wc_status,
             static_cast<unsigned long long>(tag_value(c.parsed.tag)));
  close(CloseReason::QueueError);
  finish(c);
  process_waiting();
}

int Channel::on_queue_data_in(Command& c) {
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  const u32 n = clip_segs(c.parsed, r.data_len);
  bool unmappable = false;
  c.forget_rdma();
  if (n > 0) {
    const int wrs = srpt_k_cmd_rdma_prepare(c.kcmd, SRPT_DIR_READ, c.parsed.segs, n);
    if (wrs == -SRPT_ENOSPC) {
      log_too_many_registrations(n);
      unmappable = true;  // nothing prepared (abi/cmd.h)
    } else if (wrs < 0) {
      return wrs;  // queue full: the target core calls us again
    } else {
      // The last context goes with the response: each must fit beside it.
      const u32 largest = rdma_prepared(c);
      if (largest + 1 > sq_depth_) {
        rdma_unprepare(c);
        log_context_too_long(largest + 1);
        unmappable = true;
      } else if (static_cast<u32>(wrs) + 1 > sq_depth_) {
        note_split(static_cast<u32>(wrs) + 1);
      }
    }
  }
  if (unmappable) {
    // It could never be posted: CHECK CONDITION without the data.
    u8 sense[kRefusalSenseLen];
    refusal_sense(CmdRefusal::TableFetchFailed, sense);  // ABORTED COMMAND
    RspFields f = fields_of(c, r);
    f.status = kScsiStatusCheckCondition;
    f.sense = sense;
    f.sense_len = sizeof(sense);
    send_response(c, f);
    return 0;
  }
  send_response(c, fields_of(c, r), /*data_in=*/true);
  return 0;
}

void Channel::log_too_many_registrations(u32 segs) {
  if (log_admit())
    srpt_log(SRPT_LOG_WARNING,
             "channel %s: command needs more memory registrations (%u remote segments) "
             "than its queue pair holds; refused\n",
             sess_name_.c_str(), segs);
}

int Channel::on_queue_status(Command& c) {
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  send_response(c, fields_of(c, r));
  return 0;
}

}  // namespace srpt
