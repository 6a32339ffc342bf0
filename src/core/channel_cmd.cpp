// SPDX-License-Identifier: GPL-2.0
// Channel, commands (channel.h): SRP_CMD and SRP_TSK_MGMT parsed, submitted
// to the target core or answered by the channel itself, the response sent,
// and the end of each command (send completion, release_cmd).
//
// Relies on:
// - A command slot is busy from dispatch until on_release() (command.h: it
//   ends exactly once, answered or aborted); every request that takes one
//   gets exactly one response or owes its credit (RequestFifo::owe).
// - A credit goes back only once the request's IU buffer is receivable again
//   (give_back before grant, in send_response).
// - Handling starts inside gate_ (a dispatch); answers from the target core
//   come in process context while the session exists, which the release
//   work keeps until it has drained.
#include <srpt/core/channel.h>

#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

namespace srpt {

namespace {

srp::Tag tag_of(const u8* iu, u32 len) {
  srp::Tag t{};
  if (len >= 16)
    for (int i = 0; i < 8; i++) t.bytes[i] = iu[8 + i];
  return t;
}

}  // namespace

void Channel::handle_cmd(Command& c, u32 index, u32 len) {
  c.recv_index = index;
  c.is_tmf = false;
  const u8* iu = recv_buf(index);
  CmdRefusal refusal = parse_srp_cmd(iu, len, iu_limits_, c.segs_inline, &c.parsed,
                                     Command::kInlineSegs);
  const bool needs_table = refusal == CmdRefusal::StoreTooSmall ||
                           (refusal == CmdRefusal::None && c.parsed.ext.len != 0);
  if (needs_table) {
    srpt_rdma_seg* table = table_store(c);
    if (table == nullptr) {
      answer_busy(c, tag_of(iu, len), "no memory for a descriptor table buffer");
      return;
    }
    if (refusal == CmdRefusal::StoreTooSmall)
      refusal = parse_srp_cmd(iu, len, iu_limits_, table, &c.parsed);
    else
      c.parsed.segs = table;  // the fetched table lands and is decoded here
  }
  if (refusal != CmdRefusal::None) {
    refuse(c, tag_of(iu, len), refusal);
    return;
  }
  if (c.parsed.ext.len == 0) {
    submit(c);
    return;
  }
  // The rest of the descriptor table is in initiator memory: read it into
  // this slot's table buffer, then go on in on_fetch_done().
  c.state = Command::State::Fetching;
  if (sq_reserve(c, 1, Command::SqPost::Fetch)) post_fetch(c);
}

void Channel::submit_fetched(Command& c) {
  const CmdRefusal refusal = decode_desc_table(
      reinterpret_cast<const u8*>(c.parsed.segs), &c.parsed);
  u32 fetched;
  {
    SpinGuard g(lock_);
    fetched = ++ext_tables_;
  }
  if (fetched == 1)
    srpt_log(SRPT_LOG_INFO,
             "channel %s: first external descriptor table fetched (%u descriptors)\n",
             sess_name_.c_str(), c.parsed.ext.len / 16);
  if (refusal != CmdRefusal::None) {
    refuse(c, c.parsed.tag, refusal);
    return;
  }
  submit(c);
}

void Channel::refuse(Command& c, const srp::Tag& tag, CmdRefusal why) {
  if (log_admit())
    srpt_log(SRPT_LOG_WARNING, "channel %s: SRP_CMD refused: %s\n",
             sess_name_.c_str(), cmd_refusal_name(why));
  c.state = Command::State::RspOnly;
  u8 sense[kRefusalSenseLen];
  refusal_sense(why, sense);
  RspFields f{};
  f.tag = tag;
  f.status = kScsiStatusCheckCondition;
  f.sense = sense;
  f.sense_len = sizeof(sense);
  send_response(c, f);
}

void Channel::submit(Command& c) {
  c.state = Command::State::Submitted;
  srpt_cmd_submit s{};
  s.cdb = c.parsed.cdb;
  s.cdb_len = c.parsed.cdb_len;
  s.lun = c.parsed.lun;
  s.tag = tag_value(c.parsed.tag);
  s.data_len = c.parsed.data_len;
  s.dir = c.parsed.dir;
  s.attr = c.parsed.attr;
  s.imm = c.parsed.imm;
  s.imm_len = c.parsed.imm_len;
  if (srpt_k_cmd_submit(c.kcmd, sess_, &s) == 0) return;
  // The session is stopping: the target core did not take the command and
  // holds nothing of it, so the answer is the channel's, as for a refusal
  // (ChannelTest.ACommandForAStoppingSessionIs...).
  answer_busy(c, c.parsed.tag, "session stopping");
}

void Channel::answer_busy(Command& c, const srp::Tag& tag, const char* why) {
  if (log_admit())
    srpt_log(SRPT_LOG_INFO, "channel %s: %s: command answered BUSY\n",
             sess_name_.c_str(), why);
  c.state = Command::State::RspOnly;
  RspFields f{};
  f.tag = tag;
  f.status = kScsiStatusBusy;
  send_response(c, f);
}

void Channel::handle_tsk_mgmt(Command& c, u32 index, u32 len) {
  c.recv_index = index;
  c.is_tmf = true;
  c.parsed = ParsedCmd{};
  const TskMgmtRefusal refusal = parse_srp_tsk_mgmt(recv_buf(index), len, &c.tmf);
  // The SRP_RSP echoes the request's tag (send_response reads parsed.tag
  // for commands; a task management response has no other field of it).
  c.parsed.tag = c.tmf.tag;
  if (refusal != TskMgmtRefusal::None) {
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: SRP_TSK_MGMT function 0x%02x refused: %s\n",
               sess_name_.c_str(), c.tmf.srp_func,
               tsk_mgmt_refusal_name(refusal));
    c.state = Command::State::RspOnly;
    answer_tsk_mgmt(c, tsk_mgmt_refusal_code(refusal));
    return;
  }
  if (log_admit())
    srpt_log(SRPT_LOG_INFO,
             "channel %s: %s lun %llu task tag 0x%llx\n",
             sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func),
             static_cast<unsigned long long>(c.tmf.lun),
             static_cast<unsigned long long>(tag_value(c.tmf.task_tag)));
  // The target core decides what each function does to the commands it
  // holds, and answers in on_queue_tm_rsp(). ABORT TASK names the command by
  // the tag the initiator gave it, which is the tag it was submitted with.
  c.state = Command::State::Submitted;
  srpt_tmf_submit s{};
  s.func = c.tmf.func;
  s.lun = c.tmf.lun;
  s.tag = tag_value(c.tmf.tag);
  s.ref_tag = tag_value(c.tmf.task_tag);
  const int ret = srpt_k_cmd_submit_tmf(c.kcmd, sess_, &s);
  if (ret != 0) {
    // Nothing reached the target core (no memory, or the session is
    // stopping because the channel closes): the slot is ours again.
    if (log_admit())
      srpt_log(SRPT_LOG_WARNING,
               "channel %s: %s not submitted (%d): answered FAILED\n",
               sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func), ret);
    c.state = Command::State::RspOnly;
    answer_tsk_mgmt(c, kTmrFailed);
  }
}

void Channel::answer_tsk_mgmt(Command& c, u8 rsp_code) {
  // Status GOOD with four bytes of response data (RSPVALID), as SRP asks of
  // every SRP_TSK_MGMT answer; the credit comes back as for any response.
  RspFields f{};
  f.tag = c.tmf.tag;
  f.status = kScsiStatusGood;
  f.has_rsp_code = true;
  f.rsp_code = rsp_code;
  send_response(c, f);
}

void Channel::on_queue_tm_rsp(Command& c) {
  if (SRPT_CHECK_FAILED(c.is_tmf && c.state == Command::State::Submitted)) return;
  const srpt_tmf_result r = srpt_k_cmd_tmf_result(c.kcmd);
  const u8 code = tsk_mgmt_rsp_code(r);
  u32 aborted;
  {
    SpinGuard g(lock_);
    aborted = exchange(aborted_, 0u);
  }
  if (log_admit())
    srpt_log(SRPT_LOG_INFO,
             "channel %s: %s lun %llu: target core answered %d, response code 0x%02x; "
             "%u commands aborted\n",
             sess_name_.c_str(), tsk_mgmt_func_name(c.tmf.srp_func),
             static_cast<unsigned long long>(c.tmf.lun), static_cast<int>(r),
             code, aborted);
  answer_tsk_mgmt(c, code);
}

void Channel::on_aborted(Command& c) {
  // The "aborted" path of command.h: release_cmd follows; nothing was sent
  // and nothing may be. Only a command the target core holds is aborted.
  SRPT_ASSERT(c.state == Command::State::Submitted);
  // Counted, not logged one by one: a LUN reset aborts up to a queue's
  // worth at once. The next task management answer logs the count.
  SpinGuard g(lock_);
  aborted_++;
}
// --- responses and the end of a command -----------------------------------

void Channel::send_response(Command& c, RspFields f, bool data_in) {
  {
    SpinGuard g(lock_);
    f.req_lim_delta = ius_.grant();
  }
  // The credit goes back only once the request's IU is receivable again.
  if (c.recv_index != Command::kNoRecv) give_back(exchange(c.recv_index, Command::kNoRecv));
  c.rsp_len = build_srp_rsp(srpt_k_ring_buf(send_ring_, c.index()),
                            cfg_.send_buf_size, f);
  // The response, behind the data-in writes prepared for it.
  if (data_in)
    continue_data_in(c);
  else if (sq_reserve(c, 1, Command::SqPost::Rsp))
    post_rsp(c);
}

void Channel::post_rsp(Command& c) {
  const int ret = c.state == Command::State::RspOnly
                      ? srpt_k_post_send(qp_, send_ring_, c.index(), c.rsp_len)
                      : srpt_k_cmd_send_rsp(c.kcmd, send_ring_, c.index(), c.rsp_len,
                                            c.rw_next);
  if (ret == SRPT_K_POST_BROKEN) {
    // Some writes went: the response's flushed send completion ends the
    // command (on_send).
    close(CloseReason::QueueError);
  } else if (ret != 0) {
    // No completion will come for it: the command ends here.
    sq_return(c);
    close(CloseReason::QueueError);
    finish(c);
  }
}

void Channel::finish(Command& c) {
  if (c.state == Command::State::RspOnly) {
    on_release(c);
    return;
  }
  // Drops the target core's reference; release_cmd (on_release) follows.
  srpt_k_cmd_free(c.kcmd);
}

void Channel::on_send(u32 index, bool ok) {
  if (SRPT_CHECK_FAILED(index < cfg_.slots)) return;
  if (!ok) close(CloseReason::QueueError);  // no-op when already closing
  Command& c = *cmds_[index];
  {
    // Its response and the writes in front of it are done.
    SpinGuard g(lock_);
    sq_.give_back(c);
  }
  finish(c);
  sq_resume();
  process_waiting();
}

void Channel::on_release(Command& c) {
  if (c.recv_index != Command::kNoRecv) {
    // Released without a response (aborted): its IU still goes back.
    give_back(exchange(c.recv_index, Command::kNoRecv));
    SpinGuard g(lock_);
    ius_.owe();
  }
  SpinGuard g(lock_);
  c.state = Command::State::Free;
  c.forget_rdma();
  slots_.put(c);
}

}  // namespace srpt
