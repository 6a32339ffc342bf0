// SPDX-License-Identifier: GPL-2.0
// Channel, the send queue and RDMA (channel.h): send-queue room
// (SendBudget), descriptor table reads, data-out reads, data-in writes and
// the target core's answers that carry data.
//
// Relies on:
// - A command posts one chain at a time, and only with its whole chain's
//   room reserved (sq_reserve); the room comes back when the chain's last
//   completion arrives (sq_return, or on_send for a response). Waiters post
//   in arrival order (sq_resume), without lock_.
// - A chain longer than the whole send queue is never reserved: it is
//   refused before (on_write_pending, on_queue_data_in).
// - A closing channel's QP is in the error state: posts flush, nothing is
//   counted.
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

namespace srpt {

// --- send-queue room --------------------------------------------------------

bool Channel::sq_reserve(Command& c, u32 need, Command::SqPost what) {
  SpinGuard g(lock_);
  return sq_.reserve(c, need, what, state_.closing());
}

void Channel::sq_return(Command& c) {
  {
    SpinGuard g(lock_);
    sq_.give_back(c);
  }
  sq_resume();
}

void Channel::sq_resume() {
  for (;;) {
    Command* c;
    Command::SqPost what = Command::SqPost::None;
    {
      SpinGuard g(lock_);
      // Every claim on sq_ is a Command's (its base).
      c = static_cast<Command*>(sq_.next(state_.closing(), &what));
      if (c == nullptr) return;
    }
    switch (what) {
      case Command::SqPost::Fetch: post_fetch(*c); break;
      case Command::SqPost::Read: (void)post_read(*c, true); break;
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
    // reposted (on an SRQ it goes back to the SRQ). The command never
    // reached the target core.
    const u32 index = exchange(c.recv_index, Command::kNoRecv);
    if (srq_ != nullptr && index != Command::kNoRecv) give_back(index);
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
  // The reads now and the response later must each fit the send queue;
  // a command needing more could never be posted: the target core fails it.
  if (static_cast<u32>(wrs) > sq_depth_) {
    srpt_k_cmd_rdma_unprepare(c.kcmd);
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: command needs %d send work requests, queue holds %u\n",
               sess_name_.c_str(), wrs, sq_depth_);
    return -SRPT_EINVAL;
  }
  if (!sq_reserve(c, static_cast<u32>(wrs), Command::SqPost::Read)) return 0;
  return post_read(c, false);
}

// Posts the prepared data-out reads (room reserved). From write_pending an
// error goes back to the target core; once deferred, the command fails.
int Channel::post_read(Command& c, bool deferred) {
  const int ret = srpt_k_cmd_rdma_read(c.kcmd);
  if (ret == 0) return 0;
  sq_return(c);
  if (!deferred) return ret;
  close(CloseReason::QueueError);
  srpt_k_cmd_fail(c.kcmd);
  return 0;
}

void Channel::on_rdma_done(Command& c, int wc_status) {
  sq_return(c);
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

int Channel::on_queue_data_in(Command& c) {
  srpt_cmd_result r;
  srpt_k_cmd_result(c.kcmd, &r);
  const u32 n = clip_segs(c.parsed, r.data_len);
  u32 writes = 0;
  bool unmappable = false;
  if (n > 0) {
    const int wrs = srpt_k_cmd_rdma_prepare(c.kcmd, SRPT_DIR_READ, c.parsed.segs, n);
    if (wrs == -SRPT_ENOSPC) {
      log_too_many_registrations(n);
      unmappable = true;  // nothing prepared (abi/cmd.h)
    } else if (wrs < 0) {
      return wrs;  // queue full: the target core calls us again
    } else {
      writes = static_cast<u32>(wrs);
    }
  }
  if (!unmappable && writes + 1 > sq_depth_) {
    srpt_k_cmd_rdma_unprepare(c.kcmd);
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: command needs %u send work requests, queue holds %u\n",
               sess_name_.c_str(), writes + 1, sq_depth_);
    unmappable = true;
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
  send_response(c, fields_of(c, r), writes);
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
