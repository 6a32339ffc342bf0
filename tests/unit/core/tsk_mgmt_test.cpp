// SPDX-License-Identifier: GPL-2.0
// SRP_TSK_MGMT: parsing and response codes (src/core/srp_tsk_mgmt.cpp), and
// task management through a channel and the (fake) target core: every
// function submitted with the right LUN and tags, the target core's answers
// mapped to SRP response codes, refusals answered without it, and aborts
// racing with completions ending each command exactly once.
#include <srpt/abi/log.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/channel.h>
#include <srpt/core/srp_tsk_mgmt.h>

#include "../harness/login_test.h"

namespace {

using srpt::Channel;
namespace srp = srpt::srp;

// An SRP_TSK_MGMT: tags are written as SimpleIu and EncodeSrpCmd write them,
// so a task_tag equal to an SrpCmd's tag names that command.
Bytes TskMgmtIu(uint64_t tag, uint8_t func, uint64_t task_tag = 0,
                std::array<uint8_t, 8> lun = {0, 1, 0, 0, 0, 0, 0, 0}) {
  Bytes b = SimpleIu(srp::kTskMgmt, tag, 48);
  for (int i = 0; i < 8; i++) b[20 + i] = lun[static_cast<size_t>(i)];
  b[30] = func;
  for (int i = 0; i < 8; i++) b[32 + i] = static_cast<uint8_t>(task_tag >> (56 - 8 * i));
  return b;
}

// --- parsing -----------------------------------------------------------------

TEST(SrpTskMgmtParse, EveryFunctionSrpDefines) {
  struct {
    uint8_t srp;
    srpt_tmf tmf;
    const char* name;
  } const table[] = {
      {srpt::kSrpTskAbortTask, SRPT_TMF_ABORT_TASK, "ABORT TASK"},
      {srpt::kSrpTskAbortTaskSet, SRPT_TMF_ABORT_TASK_SET, "ABORT TASK SET"},
      {srpt::kSrpTskClearTaskSet, SRPT_TMF_CLEAR_TASK_SET, "CLEAR TASK SET"},
      {srpt::kSrpTskLunReset, SRPT_TMF_LUN_RESET, "LOGICAL UNIT RESET"},
      {srpt::kSrpTskClearAca, SRPT_TMF_CLEAR_ACA, "CLEAR ACA"},
  };
  for (const auto& row : table) {
    const Bytes iu = TskMgmtIu(0x1122334455667788ull, row.srp, 0x0102030405060708ull,
                               {0x40, 0x05, 0, 0, 0, 0, 0, 0});
    srpt::ParsedTskMgmt p;
    ASSERT_EQ(srpt::TskMgmtRefusal::None, srpt::parse_srp_tsk_mgmt(iu.data(), 48, &p))
        << row.name;
    EXPECT_EQ(row.tmf, p.func) << row.name;
    EXPECT_EQ(row.srp, p.srp_func);
    EXPECT_STREQ(row.name, srpt::tsk_mgmt_func_name(row.srp));
    EXPECT_EQ(0x11, p.tag.bytes[0]);
    EXPECT_EQ(0x88, p.tag.bytes[7]);
    EXPECT_EQ(0x01, p.task_tag.bytes[0]);
    EXPECT_EQ(0x08, p.task_tag.bytes[7]);
    EXPECT_EQ(0x4005u, p.lun) << "flat-space LUN 5, as scsilun_to_int reads it";
  }
}

TEST(SrpTskMgmtParse, UnknownFunctionsAreRefused) {
  for (int f = 0; f < 256; f++) {
    const bool known = f == 0x01 || f == 0x02 || f == 0x04 || f == 0x08 || f == 0x40;
    if (known) continue;
    const Bytes iu = TskMgmtIu(9, static_cast<uint8_t>(f));
    srpt::ParsedTskMgmt p;
    EXPECT_EQ(srpt::TskMgmtRefusal::UnknownFunction,
              srpt::parse_srp_tsk_mgmt(iu.data(), 48, &p)) << f;
    EXPECT_EQ(f, p.srp_func);
    EXPECT_EQ(9, p.tag.bytes[7]) << "the tag is still read";
  }
  EXPECT_STREQ("unknown", srpt::tsk_mgmt_func_name(0x10));
}

TEST(SrpTskMgmtParse, TruncatedIus) {
  const Bytes iu = TskMgmtIu(0xabcdef, srpt::kSrpTskLunReset);
  for (uint32_t len : {0u, 1u, 15u, 16u, 31u, 40u, 47u}) {
    srpt::ParsedTskMgmt p;
    EXPECT_EQ(srpt::TskMgmtRefusal::Truncated, srpt::parse_srp_tsk_mgmt(iu.data(), len, &p))
        << len;
    EXPECT_EQ(len >= 16 ? 0xef : 0, p.tag.bytes[7]) << "tag only when the IU holds it";
  }
  srpt::ParsedTskMgmt p;
  EXPECT_EQ(srpt::TskMgmtRefusal::None, srpt::parse_srp_tsk_mgmt(iu.data(), 48, &p));
  Bytes longer = iu;
  longer.resize(64, 0xee);
  EXPECT_EQ(srpt::TskMgmtRefusal::None, srpt::parse_srp_tsk_mgmt(longer.data(), 64, &p))
      << "bytes past the IU are ignored";
}

TEST(SrpTskMgmtCodes, RefusalsAndTargetCoreAnswers) {
  EXPECT_EQ(0x02, srpt::tsk_mgmt_refusal_code(srpt::TskMgmtRefusal::Truncated));
  EXPECT_EQ(0x04, srpt::tsk_mgmt_refusal_code(srpt::TskMgmtRefusal::UnknownFunction));
  EXPECT_STREQ("IU truncated", srpt::tsk_mgmt_refusal_name(srpt::TskMgmtRefusal::Truncated));
  EXPECT_EQ(0x00, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_COMPLETE));
  EXPECT_EQ(0x00, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_NO_TASK))
      << "SAM: ABORT TASK of a task not in the task set is FUNCTION COMPLETE";
  EXPECT_EQ(0x05, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_NO_LUN));
  EXPECT_EQ(0x04, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_NOT_SUPPORTED));
  EXPECT_EQ(0x05, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_REJECTED));
  EXPECT_EQ(0x05, srpt::tsk_mgmt_rsp_code(SRPT_TMF_RESULT_FAILED));
  EXPECT_EQ(0x05, srpt::tsk_mgmt_rsp_code(static_cast<srpt_tmf_result>(77)));
}

// --- through a channel ---------------------------------------------------------

class TskMgmtTest : public LoginTest {
 protected:
  static Channel::Snapshot Snap(const Outcome& o) {
    return srpt::from_abi(o.id->context).snapshot();
  }
  srpt_k_cmd* LastTmf() {
    const auto& s = fake::tmf_submissions();
    return s.empty() ? nullptr : s.back().cmd;
  }
  RspView LastRsp(const Outcome& o) {
    if (Sent(o).empty()) {
      ADD_FAILURE() << "nothing sent";
      return RspView{};
    }
    return DecodeRsp(Sent(o).back().bytes);
  }
  // A task management answer: status GOOD, RSPVALID, 4 bytes with the code.
  void ExpectTmfRsp(const RspView& v, uint64_t tag, uint8_t code) {
    EXPECT_EQ(srp::kRsp, v.opcode);
    EXPECT_EQ(tag, v.tag);
    EXPECT_EQ(0, v.status);
    EXPECT_EQ(srp::kRspFlagRspValid, v.flags);
    EXPECT_EQ(4u, v.resp_len);
    EXPECT_EQ((Bytes{0, 0, 0, code}), v.resp_data);
    EXPECT_EQ(0u, v.sense_len);
  }
};

TEST_F(TskMgmtTest, EveryFunctionGoesToTheTargetCore) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  const uint8_t funcs[] = {srpt::kSrpTskAbortTask, srpt::kSrpTskAbortTaskSet,
                           srpt::kSrpTskClearTaskSet, srpt::kSrpTskLunReset,
                           srpt::kSrpTskClearAca};
  const srpt_tmf tmfs[] = {SRPT_TMF_ABORT_TASK, SRPT_TMF_ABORT_TASK_SET,
                           SRPT_TMF_CLEAR_TASK_SET, SRPT_TMF_LUN_RESET,
                           SRPT_TMF_CLEAR_ACA};
  for (size_t i = 0; i < 5; i++) {
    Receive(o, TskMgmtIu(0x100 + i, funcs[i], 0x0a0b0c0d0e0f0001ull,
                         {0x00, 0x03, 0, 0, 0, 0, 0, 0}));
    ASSERT_EQ(i + 1, fake::tmf_submissions().size());
    const fake::TmfSubmission& s = fake::tmf_submissions().back();
    EXPECT_EQ(tmfs[i], s.func);
    EXPECT_EQ(3u, s.lun);
    // Tags as the target core reads them: the 8 bytes in memory order.
    EXPECT_EQ(__builtin_bswap64(0x100 + i), s.tag);
    EXPECT_EQ(0x01000f0e0d0c0b0aull, s.ref_tag);
    EXPECT_TRUE(Posted(o).empty()) << "nothing is answered before the target core";
    EXPECT_EQ(kCredits - 1, Qp(o)->recvs.size()) << "the IU is held until the answer";
    fake::answer_tmf(s.cmd, SRPT_TMF_RESULT_COMPLETE);
    ExpectTmfRsp(LastRsp(o), 0x100 + i, 0x00);
    EXPECT_EQ(1u, LastRsp(o).req_lim_delta);
    EXPECT_EQ(kCredits, Qp(o)->recvs.size());
    EXPECT_EQ(1u, Snap(o).busy_slots) << "busy until the send completes";
    fake::complete_send(Qp(o));
    EXPECT_EQ(0u, Snap(o).busy_slots);
    EXPECT_EQ(1, s.cmd->frees) << "our reference dropped once";
    EXPECT_EQ(1, s.cmd->releases);
    s.cmd->frees = s.cmd->releases = 0;
  }
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_TRUE(fake::submissions().empty()) << "no SCSI command was made of them";
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "LOGICAL UNIT RESET lun 3")) << fake::log_dump();
}

TEST_F(TskMgmtTest, TargetCoreAnswersMapToSrpCodes) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const struct {
    srpt_tmf_result r;
    uint8_t code;
  } table[] = {
      {SRPT_TMF_RESULT_COMPLETE, 0x00},      {SRPT_TMF_RESULT_NO_TASK, 0x00},
      {SRPT_TMF_RESULT_NO_LUN, 0x05},        {SRPT_TMF_RESULT_NOT_SUPPORTED, 0x04},
      {SRPT_TMF_RESULT_REJECTED, 0x05},      {SRPT_TMF_RESULT_FAILED, 0x05},
  };
  uint64_t tag = 1;
  for (const auto& row : table) {
    Receive(o, TskMgmtIu(tag, srpt::kSrpTskAbortTaskSet));
    fake::answer_tmf(LastTmf(), row.r);
    ExpectTmfRsp(LastRsp(o), tag, row.code);
    fake::complete_send(Qp(o));
    tag++;
  }
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

TEST_F(TskMgmtTest, UnknownFunctionIsNotSupportedWithoutTheTargetCore) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, TskMgmtIu(0x55, 0x10));
  ExpectTmfRsp(LastRsp(o), 0x55, 0x04);
  EXPECT_EQ(1u, LastRsp(o).req_lim_delta);
  EXPECT_TRUE(fake::tmf_submissions().empty());
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "function 0x10 refused: unknown function"))
      << fake::log_dump();
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Qp(o)->recvs.size());
}

TEST_F(TskMgmtTest, TruncatedRequestIsFieldsInvalid) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Bytes iu = TskMgmtIu(0x66, srpt::kSrpTskLunReset);
  iu.resize(40);
  Receive(o, iu);
  ExpectTmfRsp(LastRsp(o), 0x66, 0x02);
  EXPECT_TRUE(fake::tmf_submissions().empty());
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
}

TEST_F(TskMgmtTest, ASubmissionTheTargetCoreRefusesIsAnsweredFailed) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  for (int err : {-SRPT_ENOMEM, -SRPT_ESHUTDOWN}) {
    fake::fail_call(fake::Call::CmdSubmitTmf, err);
    Receive(o, TskMgmtIu(0x77, srpt::kSrpTskLunReset));
    ExpectTmfRsp(LastRsp(o), 0x77, 0x05);
    EXPECT_EQ(0u, fake::active_cmds()) << "the target core holds nothing";
    fake::complete_send(Qp(o));
    EXPECT_EQ(0u, Snap(o).busy_slots) << "the slot is free again, without a release_cmd";
  }
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "not submitted")) << fake::log_dump();
}

// ABORT TASK wins: the command is aborted before it was answered. It ends
// through aborted_task + release_cmd with no response and no free; its credit
// comes back with the TMF's answer.
TEST_F(TskMgmtTest, AbortTaskBeforeTheCommandCompletes) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.tag = 0x1234;
  Receive(o, EncodeSrpCmd(c));
  srpt_k_cmd* cmd = fake::submissions().back().cmd;
  Receive(o, TskMgmtIu(0x99, srpt::kSrpTskAbortTask, 0x1234));
  ASSERT_EQ(1u, fake::tmf_submissions().size());
  EXPECT_EQ(fake::submissions().back().tag, fake::tmf_submissions().back().ref_tag)
      << "ABORT TASK names the command by the tag it was submitted with";
  EXPECT_EQ(kCredits - 2, Snap(o).req_lim);
  fake::target_core_aborts(cmd);
  EXPECT_EQ(0, cmd->frees) << "the target core dropped our reference itself";
  EXPECT_EQ(1, cmd->releases);
  fake::answer_tmf(LastTmf(), SRPT_TMF_RESULT_COMPLETE);
  ASSERT_EQ(1u, Sent(o).size()) << "only the TMF is answered";
  ExpectTmfRsp(LastRsp(o), 0x99, 0x00);
  EXPECT_EQ(2u, LastRsp(o).req_lim_delta) << "its own credit and the aborted command's";
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Qp(o)->recvs.size());
  EXPECT_EQ(1, cmd->releases) << "released exactly once";
}

// The command completes first: the target core no longer holds it and
// answers TASK DOES NOT EXIST, which SAM calls FUNCTION COMPLETE. The command
// still gets exactly its one response.
TEST_F(TskMgmtTest, AbortTaskAfterTheCommandCompleted) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.tag = 0x4321;
  Receive(o, EncodeSrpCmd(c));
  srpt_k_cmd* cmd = fake::submissions().back().cmd;
  Answer(cmd, 0);  // its SRP_RSP is posted, not completed yet
  Receive(o, TskMgmtIu(0x9a, srpt::kSrpTskAbortTask, 0x4321));
  fake::answer_tmf(LastTmf(), SRPT_TMF_RESULT_NO_TASK);
  ASSERT_EQ(2u, Sent(o).size());
  EXPECT_EQ(0x4321u, DecodeRsp(Sent(o)[0].bytes).tag);
  EXPECT_EQ(0u, DecodeRsp(Sent(o)[0].bytes).flags) << "the command's own response";
  ExpectTmfRsp(LastRsp(o), 0x9a, 0x00);
  fake::complete_send(Qp(o));
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->frees);
  EXPECT_EQ(1, cmd->releases);
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

// LOGICAL UNIT RESET aborts several commands, one of them waiting for its
// data-out reads, which complete (the target core then aborts it instead of
// executing it); another had already been answered.
TEST_F(TskMgmtTest, LunResetWithCommandsInEveryState) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  std::vector<srpt_k_cmd*> cmds;
  for (uint64_t t = 0; t < 3; t++) {
    SrpCmd c;
    c.tag = t;
    Receive(o, EncodeSrpCmd(c));
    cmds.push_back(fake::submissions().back().cmd);
  }
  SrpCmd w;
  w.tag = 3;
  w.buf_fmt = srp::kDirect << 4;
  w.out_cnt = 1;
  w.tail = DirectDesc(0x1000, 5, 4096);
  Receive(o, EncodeSrpCmd(w));
  srpt_k_cmd* writer = fake::submissions().back().cmd;
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(writer)));
  Answer(cmds[0], 0);
  Receive(o, TskMgmtIu(0xaa, srpt::kSrpTskLunReset));
  // The target core aborts what it still holds; the reads of the writer
  // complete before it can (it waits for them).
  fake::target_core_aborts(cmds[1]);
  fake::target_core_aborts(cmds[2]);
  fake::complete_rdma_read(writer);
  fake::target_core_aborts(writer);
  fake::answer_tmf(LastTmf(), SRPT_TMF_RESULT_COMPLETE);
  ExpectTmfRsp(LastRsp(o), 0xaa, 0x00);
  EXPECT_EQ(4u, LastRsp(o).req_lim_delta) << "1 + three aborted commands";
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO,
                           "LOGICAL UNIT RESET lun 1: target core answered 0, response code "
                           "0x00; 3 commands aborted"))
      << fake::log_dump();
  while (!Posted(o).empty()) fake::complete_send(Qp(o));
  for (srpt_k_cmd* k : {cmds[0], cmds[1], cmds[2], writer}) EXPECT_EQ(1, k->releases);
  EXPECT_EQ(1, cmds[0]->frees);
  EXPECT_EQ(0, cmds[1]->frees + cmds[2]->frees + writer->frees);
  size_t responses = 0;
  for (const fake::PostedSend& p : Sent(o))
    responses += p.kind != fake::PostedSend::Kind::RdmaRead;
  EXPECT_EQ(2u, responses) << "cmds[0]'s response and the TMF's";
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_EQ(kCredits, Qp(o)->recvs.size());
}

// The TMF itself aborted (a LUN reset from another session): no answer, its
// IU and credit come back.
TEST_F(TskMgmtTest, AnAbortedTaskManagementRequest) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, TskMgmtIu(0xbb, srpt::kSrpTskAbortTask, 1));
  fake::target_core_aborts(LastTmf());
  EXPECT_TRUE(Sent(o).empty());
  EXPECT_EQ(kCredits, Qp(o)->recvs.size());
  EXPECT_EQ(0u, Snap(o).busy_slots);
  Receive(o, TskMgmtIu(0xbc, srpt::kSrpTskLunReset));
  fake::answer_tmf(LastTmf(), SRPT_TMF_RESULT_COMPLETE);
  EXPECT_EQ(2u, LastRsp(o).req_lim_delta);
  fake::complete_send(Qp(o));
}

// The channel goes while a TMF is with the target core: the session drain
// lets the target core answer it, the answer is flushed, everything is freed.
TEST_F(TskMgmtTest, LogoutWithTaskManagementInFlight) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Receive(o, TskMgmtIu(0xcc, srpt::kSrpTskLunReset));
  Receive(o, SimpleIu(srp::kILogout, 0xcd));
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_EQ(0u, fake::active_cmds());
  EXPECT_EQ(0u, fake::live_sessions());
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "SRP_I_LOGOUT")) << fake::log_dump();
  // The contexts wait in the device's cache for the next login, then go.
  fake::advance_ns(uint64_t{srpt::IdleCache::kIdleMs} * 1000000u);
  RunWorks();
  EXPECT_EQ(0u, fake::live_cmds());
}

// SRP_CRED_RSP / SRP_AER_RSP answer requests we never send: accepted and
// ignored, with no credit taken or owed, between commands in flight.
TEST_F(TskMgmtTest, InitiatorResponsesBetweenCommandsAreIgnored) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Receive(o, SimpleIu(srp::kCredRsp, 1, 16));
  Receive(o, SimpleIu(srp::kAerRsp, 2, 24));
  EXPECT_EQ(kCredits - 1, Snap(o).req_lim) << "only the command took a credit";
  EXPECT_EQ(kCredits - 1, Qp(o)->recvs.size()) << "both reposted at once";
  EXPECT_TRUE(Sent(o).empty()) << "nothing answers them";
  Answer(fake::submissions().back().cmd, 0);
  EXPECT_EQ(1u, LastRsp(o).req_lim_delta);
  fake::complete_send(Qp(o));
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

}  // namespace
