// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: SRP IUs received on a logged-in channel (the receive
// completion path, Channel::dispatch and on), with the fuzzer playing the
// initiator and this file the target core and the HCA.
//
// Input: one control byte, then records of [op][len hi][len lo][len bytes]
// (a length past the end takes what is left; at most kMaxRecords).
//   control bit 0  CM kind: 0 IB/CM, 1 RDMA/CM
//           bit 1  the login asks for immediate data at offset 68
//           bit 2  records start before ESTABLISHED (the channel queues
//                  them until the first record has been handled)
//           bit 3  the target core answers CHECK CONDITION instead of GOOD
//   record op % 5  0  the bytes arrive as an IU; everything settles after
//                  1  the same, but completions of what it sends fail
//                  2  the bytes arrive and nothing settles (commands stay
//                     in flight while the next IU arrives)
//                  3  a receive completes with an error
//                  4  the initiator disconnects (DREQ)
// "Settles": the target core answers every command (write_pending for
// data-out, then queue_data_in or queue_status) and task management
// request (queue_tm_rsp), sends complete, queued work runs.
//
// After the records, everything settles and then, besides the fixture's
// teardown checks (THE OWNERSHIP RULE, no leak, no bug report, no contract
// violation): a channel that is still live has every receive buffer posted
// again and no command slot busy, and still works: a TEST UNIT READY gets
// its SRP_RSP with the tag echoed. A channel that closed was released
// through its release work, which destroyed its cm_id and QP.
#include <srpt/core/abi_handle.h>
#include <srpt/core/channel.h>
#include <srpt/core/srp_wire.h>

#include <map>

#include "../unit/harness/login_test.h"
#include "fuzz_case.h"

namespace {

namespace srp = srpt::srp;
using srpt::Channel;

constexpr size_t kMaxRecords = 16;
constexpr int kMaxSettleSteps = 20000;
constexpr uint64_t kProbeTag = 0x5052'4f42'4550'524full;

class SrpIuFuzz : public LoginTest {
 public:
  void Run(const uint8_t* data, size_t size) {
    const uint8_t ctl = size > 0 ? data[0] : 0;
    size_t pos = size > 0 ? 1 : 0;
    const srpt_cm_kind kind = (ctl & 1) ? SRPT_CM_RDMA : SRPT_CM_IB;
    check_condition_ = ctl & 8;

    LoginReq r = GoodReq(kind);
    if (ctl & 2) {
      r.flags |= srp::kImmedRequested;
      r.imm_off = 68;
    }
    o_ = Login(r);
    ExpectAccepted(o_);
    if (o_.ret != 0) return;
    const size_t recv_depth = Qp(o_)->recvs.size();
    bool established = !(ctl & 4);
    if (established) Establish(o_);

    for (size_t n = 0; n < kMaxRecords && pos + 3 <= size; n++) {
      const uint8_t op = data[pos] % 5;
      size_t len = (size_t{data[pos + 1]} << 8) | data[pos + 2];
      pos += 3;
      if (len > size - pos) len = size - pos;
      const Bytes iu(data + pos, data + pos + len);
      pos += len;
      switch (op) {
        case 0:
        case 1:
        case 2:
          if (!Deliverable()) break;
          Receive(o_, iu);
          if (op != 2) Settle(op == 1);
          break;
        case 3:
          if (!Deliverable()) break;
          fake::fail_recv(Qp(o_));
          Settle(false);
          break;
        case 4:
          // The CM delivers nothing on an id once it is destroyed.
          if (!o_.id->destroyed()) fake::cm_event(o_.id, SRPT_CM_EV_DISCONNECT);
          break;
      }
      if (!established) {
        if (!o_.id->destroyed()) Establish(o_);
        established = true;
        Settle(false);
      }
    }
    if (!established && !o_.id->destroyed()) Establish(o_);
    Settle(false);

    if (Live()) {
      EXPECT_EQ(recv_depth, Qp(o_)->recvs.size()) << "receive buffers not all reposted";
      const Channel::Snapshot snap = Chan().snapshot();
      EXPECT_EQ(0u, snap.busy_slots) << "command slots still busy";
      EXPECT_EQ(0u, snap.waiting) << "requests still waiting";
      Probe();
    } else {
      RunWorks();
      EXPECT_EQ(nullptr, Qp(o_)) << "a closed channel's QP is gone";
      EXPECT_EQ(1, o_.id->channel_destroys) << "its cm_id destroyed by the channel";
    }
  }

 private:
  Channel& Chan() const { return srpt::from_abi(o_.id->context); }

  // The channel exists, has not closed and its QP takes receives.
  bool Live() const {
    srpt_k_qp* qp = Qp(o_);
    return qp != nullptr && !qp->error && o_.id->context != nullptr &&
           Chan().snapshot().state <= Channel::State::Live;
  }
  bool Deliverable() const { return Live() && !Qp(o_)->recvs.empty(); }

  const fake::Submission* SubmissionOf(const srpt_k_cmd* cmd) const {
    const auto& s = fake::submissions();
    for (size_t i = s.size(); i-- > 0;)
      if (s[i].cmd == cmd) return &s[i];
    return nullptr;
  }

  // One step of the target core for a command it holds; false when every
  // command it holds was already answered (or waits for its RDMA reads).
  bool TargetCoreStep() {
    srpt_k_qp* qp = Qp(o_);
    // Task management requests: the target core carries each out and
    // answers it (queue_tm_rsp), "function complete" or, with bit 3,
    // "rejected".
    for (const fake::TmfSubmission& t : fake::tmf_submissions()) {
      srpt_k_cmd* cmd = t.cmd;
      if (cmd->qp != qp || !cmd->active || !cmd->is_tmf ||
          cmd->phase != srpt_k_cmd::Phase::Submitted)
        continue;
      fake::answer_tmf(cmd, check_condition_ ? SRPT_TMF_RESULT_REJECTED
                                              : SRPT_TMF_RESULT_COMPLETE);
      return true;
    }
    for (const fake::Submission& s : fake::submissions()) {
      srpt_k_cmd* cmd = s.cmd;
      if (cmd->qp != qp || !cmd->active) continue;
      if (cmd->phase != srpt_k_cmd::Phase::Submitted &&
          cmd->phase != srpt_k_cmd::Phase::Executing)
        continue;
      const fake::Submission* latest = SubmissionOf(cmd);
      if (latest != &s) continue;
      // Stages per submission: 0 nothing yet, 1 write_pending called, 2 answered.
      Progress& progress = progress_[{cmd, cmd->submits}];
      int& stage = progress.stage;
      if (stage >= 2) continue;
      srpt_core_cmd* ctx = fake::cmd_ctx(cmd);
      // As transport_generic_new_cmd(): write_pending only for data-out
      // with data to move; anything else executes at once.
      if (stage == 0 && s.dir == SRPT_DIR_WRITE && cmd->result.data_len > 0 &&
          cmd->phase == srpt_k_cmd::Phase::Submitted) {
        stage = 1;
        progress.fails_at_write_pending = cmd->fails;
        if (srpt_core_cmd_write_pending(ctx) == 0) return true;
        // The target core fails a command whose data-out it cannot start.
        AnswerStatus(cmd, 0x02);
        stage = 2;
        return true;
      }
      // A data-out command whose write_pending was accepted is the
      // fabric's until it calls target_execute_cmd(): the target core
      // answers it only then (an abort, too, waits for that).
      if (stage == 1 && cmd->phase != srpt_k_cmd::Phase::Executing) continue;
      // The fabric failed its data-out (srpt_k_cmd_fail): the target core
      // answered that already (the fake plays it there).
      if (stage == 1 && cmd->fails != progress.fails_at_write_pending) {
        stage = 2;
        continue;
      }
      stage = 2;
      if (check_condition_) {
        AnswerStatus(cmd, 0x02);
      } else if (s.dir == SRPT_DIR_READ) {
        (void)srpt_core_cmd_queue_data_in(ctx);
      } else {
        (void)srpt_core_cmd_queue_status(ctx);
      }
      return true;
    }
    return false;
  }

  void AnswerStatus(srpt_k_cmd* cmd, uint8_t status) {
    srpt_cmd_result r = cmd->result;
    r.status = status;
    std::vector<uint8_t> sense;
    if (status == 0x02) {
      sense.assign(18, 0);
      sense[0] = 0x70;
      sense[2] = 0x05;  // ILLEGAL REQUEST
      sense[7] = 10;
    }
    fake::set_cmd_result(cmd, r, std::move(sense));
    (void)srpt_core_cmd_queue_status(fake::cmd_ctx(cmd));
  }

  // Runs the target core, the send queue and the work queue until nothing
  // moves. `fail_sends`: the send completions of this round fail.
  void Settle(bool fail_sends) {
    for (int step = 0; step < kMaxSettleSteps; step++) {
      srpt_k_qp* qp = Qp(o_);
      if (qp != nullptr && !qp->error && TargetCoreStep()) continue;
      if (qp != nullptr && qp->error && fake::flush_one(qp)) continue;
      if (qp != nullptr && !qp->error && !qp->sends.empty()) {
        fake::complete_send(qp, 0, !fail_sends);
        continue;
      }
      if (fake::run_one_work()) continue;
      return;
    }
    ADD_FAILURE() << "still busy after " << kMaxSettleSteps << " steps";
  }

  // A TEST UNIT READY on the live channel gets its response.
  void Probe() {
    const size_t sent_before = Sent(o_).size();
    SrpCmd c;
    c.tag = kProbeTag;
    Receive(o_, EncodeSrpCmd(c));
    const bool cc = check_condition_;
    check_condition_ = false;
    Settle(false);
    check_condition_ = cc;
    ASSERT_TRUE(Live()) << "a TEST UNIT READY closed the channel";
    ASSERT_EQ(sent_before + 1, Sent(o_).size()) << "one response to the probe";
    const RspView v = DecodeRsp(Sent(o_).back().bytes);
    EXPECT_EQ(srp::kRsp, v.opcode);
    EXPECT_EQ(kProbeTag, v.tag);
    EXPECT_EQ(0, v.status);
    EXPECT_EQ(0u, Chan().snapshot().busy_slots);
  }

  Outcome o_{};
  bool check_condition_ = false;
  // Per submission of a command: how far the target core took it, and its
  // srpt_k_cmd_fail count when write_pending was called.
  struct Progress {
    int stage = 0;
    int fails_at_write_pending = 0;
  };
  std::map<std::pair<const srpt_k_cmd*, int>, Progress> progress_;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  InitFuzzHarness(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return RunFuzzCase<SrpIuFuzz>(data, size);
}
