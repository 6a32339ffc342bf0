// SPDX-License-Identifier: GPL-2.0
// A channel after a successful login (src/core/channel.cpp): requests in,
// commands through the (fake) target core, responses out, credits, and every
// way it closes, each through the one release work.
#include <srpt/abi/fabric.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/channel.h>
#include <srpt/core/target.h>

#include <string>

#include "../harness/login_test.h"

namespace {

using srpt::Channel;
namespace srp = srpt::srp;

constexpr uint64_t kTagValue = 0xa7a6a5a4a3a2a1a0ull;  // SrpCmd's tag, as the target core reads it

class ChannelTest : public LoginTest {
 protected:
  static Channel& Chan(const Outcome& o) { return srpt::from_abi(o.id->context); }
  static Channel::Snapshot Snap(const Outcome& o) { return Chan(o).snapshot(); }

  srpt_k_cmd* LastSubmitted() {
    const auto& s = fake::submissions();
    return s.empty() ? nullptr : s.back().cmd;
  }
  // An SRP_CMD with one direct descriptor for `dir`, received and submitted.
  srpt_k_cmd* SubmitDirect(const Outcome& o, srpt_data_dir dir, uint64_t va, uint32_t key,
                           uint32_t len) {
    const bool out = dir == SRPT_DIR_WRITE;
    SrpCmd c;
    c.buf_fmt = out ? srp::kDirect << 4 : srp::kDirect;
    (out ? c.out_cnt : c.in_cnt) = 1;
    c.tail = DirectDesc(va, key, len);
    Receive(o, EncodeSrpCmd(c));
    return LastSubmitted();
  }
  // A 512-byte data-out command whose RDMA read is posted and not yet
  // complete (nullptr, with a test failure, when it is not).
  srpt_k_cmd* DataOutReading(const Outcome& o) {
    srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_WRITE, 0x20000, 0x99, 512);
    if (cmd == nullptr || srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)) != 0) {
      ADD_FAILURE() << "the data-out command did not reach its RDMA read";
      return nullptr;
    }
    return cmd;
  }
  // The target core finishes the command with `status` (and `sense`).
  // `sense_len`: what the target core reports (0: sense.size()).
  void Answer(srpt_k_cmd* cmd, uint8_t status, std::vector<uint8_t> sense = {},
              size_t sense_len = 0) {
    srpt_cmd_result r = cmd->result;
    r.status = status;
    fake::set_cmd_result(cmd, r, sense, sense_len);
    EXPECT_EQ(0, srpt_core_cmd_queue_status(fake::cmd_ctx(cmd)));
  }
  RspView LastRsp(const Outcome& o) {
    if (Sent(o).empty()) {
      ADD_FAILURE() << "nothing sent";
      return RspView{};
    }
    return DecodeRsp(Sent(o).back().bytes);
  }
  // A channel of each CM closes (a logout) while `down_until` keeps its
  // port from sending for 3 s: its DREQ goes out once it can, not before,
  // and promptly then.
  void ExpectTheDisconnectWaitsFor(void (*down_until)(uint64_t ns)) {
    for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
      SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
      fake::reset_trace();
      const Outcome o = LiveChannel(kind);
      const uint64_t back = fake::now_ns() + 3000000000ull;
      down_until(back);
      Receive(o, SimpleIu(srp::kILogout, 9));
      RunWorks();
      const uint64_t disc = fake::find_call("srpt_k_cm_disconnect", o.id);
      ASSERT_NE(0u, disc);
      EXPECT_EQ(0u, fake::find_call("srpt_k_cm_disconnect", o.id, -1, disc + 1));
      EXPECT_NE(0u, fake::find_last_call("srpt_k_sleep_ms")) << fake::trace_dump();
      EXPECT_LT(fake::find_last_call("srpt_k_sleep_ms"), disc) << "the disconnect came after the wait";
      EXPECT_GE(fake::now_ns(), back) << "not before the port could send";
      EXPECT_LT(fake::now_ns(), back + 200000000ull) << "and promptly after";
      ExpectReleasedByChannel(o);
      EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "is down; the disconnect waits for it"))
          << fake::log_dump();
      EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "port active again after 3000 ms"))
          << fake::log_dump();
      down_until(0);
    }
    ExpectAllChannelsReleased();
  }
  // Everything of a released channel is gone; the target itself remains,
  // and the `devices` still added, each with its port event work.
  void ExpectAllChannelsReleased(size_t devices = 1) {
    // Released channels' receive rings and command contexts stay cached
    // until the devices' trim works free them, IdleCache::kIdleMs later.
    fake::advance_ns(uint64_t{srpt::IdleCache::kIdleMs} * 1000000u);
    fake::run_works();
    EXPECT_EQ(0u, fake::live_qps());
    EXPECT_EQ(0u, fake::live_rings());
    EXPECT_EQ(0u, fake::live_cmds());
    EXPECT_EQ(0u, fake::live_sessions());
    EXPECT_EQ(3 * devices, fake::live_works())
        << "the devices' port event works and their two caches' trim works only";
    EXPECT_EQ(0u, fake::live_completions());
    EXPECT_EQ(2 * devices, fake::live_spinlocks()) << "the devices' two cache locks only";
    EXPECT_EQ(0u, fake::queued_works());
    EXPECT_EQ(0u, fake::later_works());
  }
  // The release sequence of `o`, in order.
  void ExpectReleaseSequence(const Outcome& o, const void* qp, const void* sess) {
    const uint64_t disc = fake::find_call("srpt_k_cm_disconnect", o.id);
    const uint64_t err = fake::find_call("srpt_k_qp_error", qp, -1, disc);
    const uint64_t drain = fake::find_call("srpt_k_session_drain", sess, -1, err);
    const uint64_t remove = fake::find_call("srpt_k_session_remove", sess, -1, drain);
    // IB/CM: the cm_id goes before the QP (its RTU callback uses the QP);
    // RDMA/CM: the QP first (it is destroyed through the cm_id).
    const bool ib = o.id->kind == SRPT_CM_IB;
    const uint64_t first = ib ? fake::find_call("srpt_k_cm_destroy", o.id, -1, remove)
                              : fake::find_call("srpt_k_qp_destroy", qp, -1, remove);
    const uint64_t second = ib ? fake::find_call("srpt_k_qp_destroy", qp, -1, first)
                               : fake::find_call("srpt_k_cm_destroy", o.id, -1, first);
    const uint64_t ring = fake::find_call("srpt_k_ring_destroy", nullptr, -1, second);
    EXPECT_NE(0u, disc);
    EXPECT_NE(0u, err) << "QP to error after the disconnect\n" << fake::trace_dump();
    EXPECT_NE(0u, drain) << "session drained after";
    EXPECT_NE(0u, remove) << "and removed";
    EXPECT_NE(0u, first) << (ib ? "cm_id" : "QP") << " destroyed after";
    EXPECT_NE(0u, second) << (ib ? "QP" : "cm_id") << " destroyed after that";
    EXPECT_NE(0u, ring) << "rings freed last";
    ExpectReleasedByChannel(o);
  }
};

}  // namespace

// --- establishment ---------------------------------------------------------------

TEST_F(ChannelTest, EstablishedMakesItLive) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = GoodReq(kind);
    r.flags = srp::kMultiChanMulti;
    const Outcome o = Login(r);
    ExpectAccepted(o);
    EXPECT_EQ(Channel::State::Connecting, Snap(o).state);
    Establish(o);
    EXPECT_EQ(Channel::State::Live, Snap(o).state);
    // IB/CM moves the QP to RTS now; rdma_accept() already did.
    EXPECT_EQ(kind == SRPT_CM_IB, Qp(o)->ready);
    Establish(o);  // a second RTU changes nothing
    EXPECT_EQ(Channel::State::Live, Snap(o).state);
  }
}

TEST_F(ChannelTest, RequestsBeforeEstablishedWaitForIt) {
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  SrpCmd c;
  Receive(o, EncodeSrpCmd(c));
  c.tag = 2;
  Receive(o, EncodeSrpCmd(c));
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_EQ(2u, Snap(o).waiting);
  Establish(o);
  ASSERT_EQ(2u, fake::submissions().size());
  EXPECT_EQ(kTagValue, fake::submissions()[0].tag) << "in arrival order";
  EXPECT_EQ(0x0200000000000000ull, fake::submissions()[1].tag);
  EXPECT_EQ(0u, Snap(o).waiting);
}

TEST_F(ChannelTest, QpReadyFailingClosesTheChannel) {
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  fake::fail_call(fake::Call::QpReady, -SRPT_EINVAL);
  Establish(o);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
}

// --- one command, start to finish --------------------------------------------------

TEST_F(ChannelTest, ACommandWithoutDataFromRequestToRelease) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.cdb = {0x00, 0, 0, 0, 0, 0x7e};
  c.lun = {0x40, 0x05, 0, 0, 0, 0, 0, 0};  // flat space LUN 5
  c.task_attr = 2;                         // ORDERED
  const uint32_t index = Receive(o, EncodeSrpCmd(c));

  ASSERT_EQ(1u, fake::submissions().size());
  const fake::Submission& s = fake::submissions()[0];
  EXPECT_EQ(16u, s.cdb.size());
  EXPECT_EQ(0x7e, s.cdb[5]);
  EXPECT_EQ(0x4005u, s.lun);
  EXPECT_EQ(kTagValue, s.tag);
  EXPECT_EQ(SRPT_DIR_NONE, s.dir);
  EXPECT_EQ(0u, s.data_len);
  EXPECT_EQ(SRPT_TASK_ORDERED, s.attr);
  EXPECT_FALSE(s.has_imm);
  EXPECT_EQ(fake::sessions()[0], s.sess);
  EXPECT_EQ(1u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits - 1, Qp(o)->recvs.size()) << "the IU stays with the command";

  Answer(s.cmd, 0x00);
  ASSERT_EQ(1u, Posted(o).size());
  const fake::PostedSend& rsp = Posted(o).front();
  EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, rsp.kind);
  const RspView v = DecodeRsp(rsp.bytes);
  EXPECT_EQ(0xc1, v.opcode);
  EXPECT_EQ(0xa0a1a2a3a4a5a6a7ull, v.tag) << "the tag's bytes echoed";
  EXPECT_EQ(1u, v.req_lim_delta);
  EXPECT_EQ(0x00, v.status);
  EXPECT_EQ(0, v.flags);
  EXPECT_EQ(36u, rsp.bytes.size());
  // The IU was reposted before the response went out: its credit is real.
  const uint64_t repost = fake::find_last_call("srpt_k_post_recv", Qp(o), index);
  EXPECT_NE(0u, repost);
  EXPECT_LT(repost, rsp.seq) << fake::trace_dump();
  EXPECT_EQ(kCredits, Qp(o)->recvs.size());

  // The send completes: the target core's reference goes, the slot is free.
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, s.cmd->frees);
  EXPECT_EQ(1, s.cmd->releases);
  EXPECT_LT(fake::find_call("srpt_k_cmd_free", s.cmd),
            fake::find_call("srpt_core_cmd_release", s.cmd));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(0u, fake::active_cmds());
}

TEST_F(ChannelTest, CheckConditionCarriesTheSense) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  std::vector<uint8_t> sense(18, 0);
  sense[0] = 0x70;
  sense[2] = 0x06;  // UNIT ATTENTION
  sense[7] = 10;    // additional sense length: 18 bytes in all
  sense[12] = 0x29;
  Answer(LastSubmitted(), 0x02, sense);
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x02, v.status);
  EXPECT_EQ(srp::kRspFlagSnsValid, v.flags);
  EXPECT_EQ(18u, v.sense_len);
  EXPECT_EQ(sense, v.sense);
}

// The sense buffer belongs to the slot and outlives
// its commands. The target core's own CHECK CONDITIONs write 18 bytes of
// fixed-format sense and report the whole 96-byte buffer (as
// translate_sense_reason() does); what lies past those 18 bytes was an
// earlier command's sense (before the shim zeroed the buffer for each
// command) and is no part of this one's: only the 18 bytes go out.
TEST_F(ChannelTest, ResponseCarriesNoSenseOfAnEarlierCommandOfTheSlot) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const size_t slots = Chan(o).slots();
  // A long descriptor-format sense in every slot.
  std::vector<uint8_t> earlier(96, 0xee);
  earlier[0] = 0x72;
  earlier[1] = 0x05;
  earlier[7] = 88;  // 8 + 88 = 96 bytes
  for (size_t i = 0; i < slots; i++) {
    SrpCmd c;
    c.tag = i;
    Receive(o, EncodeSrpCmd(c));
    srpt_k_cmd* cmd = LastSubmitted();
    Answer(cmd, 0x02, earlier);
    ASSERT_EQ(96u, LastRsp(o).sense_len);
    fake::complete_send(Qp(o));
  }
  // Whichever slot comes next: a fixed-format sense of 18 bytes, reported
  // as the whole buffer.
  std::vector<uint8_t> now(18, 0);
  now[0] = 0x70;
  now[2] = 0x05;  // ILLEGAL REQUEST
  now[7] = 10;
  now[12] = 0x24;  // INVALID FIELD IN CDB
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Answer(LastSubmitted(), 0x02, now, fake::kSenseBufferSize);
  const RspView v = LastRsp(o);
  EXPECT_EQ(srp::kRspFlagSnsValid, v.flags);
  EXPECT_EQ(18u, v.sense_len) << "8 + its additional sense length";
  EXPECT_EQ(now, v.sense);
  const std::vector<uint8_t>& wire = Sent(o).back().bytes;
  EXPECT_EQ(36u + 18u, wire.size());
  EXPECT_EQ(wire.end(), std::find(wire.begin() + 36, wire.end(), 0xee))
      << "a byte of the earlier command's sense went out";
  fake::complete_send(Qp(o));
  // GOOD without sense in the same slot: no sense at all.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Answer(LastSubmitted(), 0x00);
  const RspView good = LastRsp(o);
  EXPECT_EQ(0u, good.sense_len);
  EXPECT_EQ(0, good.flags & srp::kRspFlagSnsValid);
  EXPECT_EQ(36u, Sent(o).back().bytes.size());
}

TEST_F(ChannelTest, SenseIsTruncatedToTheResponseBuffer) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_MAX_RSP_SIZE, "48", 2));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Answer(LastSubmitted(), 0x02, std::vector<uint8_t>(96, 0x5a));
  const RspView v = LastRsp(o);
  EXPECT_EQ(12u, v.sense_len) << "48 - 36";
  EXPECT_EQ(48u, Sent(o).back().bytes.size());
}

TEST_F(ChannelTest, DataInGoesByRdmaWriteInFrontOfTheResponse) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.cdb = {0x28};  // READ(10)
  c.buf_fmt = srp::kDirect;  // data-in
  c.in_cnt = 1;
  c.tail = DirectDesc(0x10000, 0x1234, 4096);
  Receive(o, EncodeSrpCmd(c));
  ASSERT_EQ(1u, fake::submissions().size());
  srpt_k_cmd* cmd = LastSubmitted();
  EXPECT_EQ(SRPT_DIR_READ, fake::submissions()[0].dir);
  EXPECT_EQ(4096u, fake::submissions()[0].data_len);
  // The backend read only 1024 bytes.
  fake::set_cmd_result(cmd, srpt_cmd_result{0, 1, 0, 3072, nullptr, 0, 1024});
  EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
  ASSERT_EQ(1u, Posted(o).size());
  EXPECT_EQ(1u, Posted(o).front().rdma_wrs) << "one write, chained";
  ASSERT_EQ(1u, cmd->segs.size());
  EXPECT_EQ(1024u, cmd->segs[0].len) << "clipped to what the backend moved";
  EXPECT_EQ(0x10000u, cmd->segs[0].va);
  EXPECT_EQ(0x1234u, cmd->segs[0].rkey);
  const RspView v = LastRsp(o);
  EXPECT_EQ(srp::kRspFlagDiUnder, v.flags);
  EXPECT_EQ(3072u, v.data_in_res);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
  EXPECT_TRUE(cmd->segs.empty()) << "contexts go with the free";
}

TEST_F(ChannelTest, DataOutIsReadThenExecuted) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.cdb = {0x2a};  // WRITE(10)
  c.buf_fmt = srp::kDirect << 4;  // data-out
  c.out_cnt = 1;
  c.tail = DirectDesc(0x20000, 0x99, 512);
  Receive(o, EncodeSrpCmd(c));
  srpt_k_cmd* cmd = LastSubmitted();
  ASSERT_NE(nullptr, cmd);
  EXPECT_EQ(SRPT_DIR_WRITE, fake::submissions()[0].dir);
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  ASSERT_EQ(1u, Posted(o).size());
  EXPECT_EQ(fake::PostedSend::Kind::RdmaRead, Posted(o).front().kind);
  EXPECT_EQ(0, cmd->executes);
  fake::complete_rdma_read(cmd, true);
  EXPECT_EQ(1, cmd->executes);
  Answer(cmd, 0x00);
  EXPECT_EQ(0x00, LastRsp(o).status);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

TEST_F(ChannelTest, AFailedDataOutReadEndsInCheckCondition) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = DataOutReading(o);
  ASSERT_NE(nullptr, cmd);
  fake::complete_rdma_read(cmd, false);
  EXPECT_EQ(1, cmd->fails);
  EXPECT_EQ(0, cmd->executes);
  EXPECT_EQ(0x02, LastRsp(o).status);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

// A failed data-out read names the channel, the work completion's status and
// the command's tag in one line.
TEST_F(ChannelTest, AFailedDataOutReadLogsItsStatusAndTag) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = DataOutReading(o);
  ASSERT_NE(nullptr, cmd);
  fake::reset_log();
  fake::complete_rdma_read_status(cmd, fake::kWcRemAccessErr);
  EXPECT_EQ(1, cmd->fails);
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_WARNING, "RDMA read failed"))
      << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "remote access error (10)")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "tag 0xa7a6a5a4a3a2a1a0")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, std::string("channel ") + Chan(o).session_name() + ":"))
      << fake::log_dump();
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

// A read flushed because the channel closes is not a failure of its own: the
// close already said why; no line per flushed command.
TEST_F(ChannelTest, AFlushedDataOutReadLogsNoFailure) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = DataOutReading(o);
  ASSERT_NE(nullptr, cmd);
  fake::complete_rdma_read_status(cmd, fake::kWcWrFlushErr);
  EXPECT_EQ(1, cmd->fails);
  EXPECT_EQ(0u, fake::count_log_lines(SRPT_LOG_WARNING, "RDMA read failed"))
      << fake::log_dump();
  fake::complete_send(Qp(o));
}

TEST_F(ChannelTest, ImmediateDataIsHandedOverAndExecutedAtOnce) {
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srp::kImmedRequested;
  r.imm_off = 68;
  const Outcome o = Login(r);
  ExpectAccepted(o);
  ASSERT_EQ(srp::kRspImmedSupported, Rsp(o).rsp_flags & srp::kRspImmedSupported);
  Establish(o);
  SrpCmd c;
  c.buf_fmt = srp::kImmediate << 4;
  c.out_cnt = 1;
  c.tail = {0, 0, 0, 8};                 // struct srp_imm_buf: 8 bytes
  c.tail.resize(68 - 48, 0);            // up to the offset
  Append(c.tail, {1, 2, 3, 4, 5, 6, 7, 8});
  Receive(o, EncodeSrpCmd(c));
  ASSERT_EQ(1u, fake::submissions().size());
  const fake::Submission& s = fake::submissions()[0];
  EXPECT_TRUE(s.has_imm);
  EXPECT_EQ((std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}), s.imm);
  EXPECT_EQ(8u, s.data_len);
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(s.cmd)));
  EXPECT_EQ(1, s.cmd->executes) << "no RDMA read";
  EXPECT_TRUE(Posted(o).empty());
  Answer(s.cmd, 0);
  fake::complete_send(Qp(o));
}

// --- requests answered without the target core ------------------------------------

TEST_F(ChannelTest, MalformedCommandsGetCheckConditionWithoutSubmit) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd bidi;
  bidi.buf_fmt = (srp::kDirect << 4) | srp::kDirect;
  bidi.tail = DirectDesc(1, 2, 3);
  SrpCmd imm;  // immediate data on a channel that did not negotiate it
  imm.buf_fmt = srp::kImmediate << 4;
  imm.tail = {0, 0, 0, 4, 1, 2, 3, 4};
  Bytes truncated = EncodeSrpCmd(SrpCmd{});
  truncated.resize(40);
  for (const Bytes& iu : {truncated, EncodeSrpCmd(bidi), EncodeSrpCmd(imm)}) {
    const size_t sent = Sent(o).size();
    const uint32_t index = Receive(o, iu);
    ASSERT_EQ(sent + 1, Sent(o).size());
    const fake::PostedSend& s = Sent(o).back();
    EXPECT_EQ(fake::PostedSend::Kind::Send, s.kind) << "not through the target core";
    const RspView v = DecodeRsp(s.bytes);
    EXPECT_EQ(0xc1, v.opcode);
    EXPECT_EQ(0x02, v.status);
    EXPECT_EQ(1u, v.req_lim_delta);
    ASSERT_EQ(18u, v.sense.size());
    EXPECT_EQ(0x05, v.sense[2]) << "ILLEGAL REQUEST";
    EXPECT_EQ(0x0e, v.sense[12]) << "INVALID FIELD IN COMMAND INFORMATION UNIT";
    EXPECT_EQ(0x03, v.sense[13]);
    EXPECT_LT(fake::find_last_call("srpt_k_post_recv", Qp(o), index), s.seq);
    fake::complete_send(Qp(o));
  }
  EXPECT_EQ(0xa0a1a2a3a4a5a6a7ull, DecodeRsp(Sent(o)[0].bytes).tag)
      << "a truncated IU still has its tag";
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "bidirectional")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "immediate data not negotiated"));
}

TEST_F(ChannelTest, TaskManagementWithAnUnknownFunctionIsNotSupported) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, SimpleIu(srp::kTskMgmt, 0x55, 48));  // function 0: none
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x55u, v.tag);
  EXPECT_EQ(srp::kRspFlagRspValid, v.flags);
  EXPECT_EQ(4u, v.resp_len);
  EXPECT_EQ((Bytes{0, 0, 0, 4}), v.resp_data);
  EXPECT_EQ(0, v.status);
  EXPECT_TRUE(fake::submissions().empty());
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
}

// --- credits --------------------------------------------------------------------------

TEST_F(ChannelTest, CreditsAddUp) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  int64_t credits = Rsp(o).req_lim_delta;  // what the initiator holds
  size_t seen = 0;
  auto collect = [&] {
    for (; seen < Sent(o).size(); seen++) credits += DecodeRsp(Sent(o)[seen].bytes).req_lim_delta;
  };
  auto request = [&](const Bytes& iu) {
    ASSERT_GT(credits, 0) << "the initiator would have no credit for it";
    credits--;
    Receive(o, iu);
    collect();
    EXPECT_EQ(credits, static_cast<int64_t>(Snap(o).req_lim));
  };
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 40; i++) {
      SrpCmd c;
      c.tag = static_cast<uint64_t>(round * 100 + i);
      request(EncodeSrpCmd(c));
    }
    // Unknown opcodes take a credit and answer nothing; it comes back with
    // the next response.
    request(SimpleIu(0x7f, 1));
    request(SimpleIu(0x7f, 2));
    // The target core answers every command of this round.
    std::vector<srpt_k_cmd*> pending;
    for (size_t i = static_cast<size_t>(round) * 40; i < fake::submissions().size(); i++)
      pending.push_back(fake::submissions()[i].cmd);
    ASSERT_EQ(40u, pending.size());
    for (size_t i = 0; i < pending.size(); i++) {
      Answer(pending[i], 0);
      collect();
      if (i == 0) {
        EXPECT_EQ(3u, DecodeRsp(Sent(o).back().bytes).req_lim_delta)
            << "1 + the two unknown IUs' credits";
      }
      EXPECT_EQ(credits, static_cast<int64_t>(Snap(o).req_lim));
    }
    while (!Posted(o).empty()) fake::complete_send(Qp(o));
    EXPECT_EQ(kCredits, credits) << "every credit came back";
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "unknown opcode 0x7f"));
}

TEST_F(ChannelTest, InitiatorResponsesTakeNoCredit) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, SimpleIu(srp::kCredRsp, 1));
  Receive(o, SimpleIu(srp::kAerRsp, 2));
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_EQ(kCredits, Qp(o)->recvs.size()) << "both reposted";
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Answer(LastSubmitted(), 0);
  EXPECT_EQ(1u, LastRsp(o).req_lim_delta) << "nothing owed";
  fake::complete_send(Qp(o));
}

TEST_F(ChannelTest, ACommandWaitsForASlotWhileResponsesAreInFlight) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  ASSERT_EQ(4u, Rsp(o).req_lim_delta);
  for (uint64_t t = 0; t < 4; t++) {
    SrpCmd c;
    c.tag = t;
    Receive(o, EncodeSrpCmd(c));
  }
  EXPECT_EQ(4u, Snap(o).busy_slots);
  Answer(fake::submissions()[0].cmd, 0);  // one credit back, its send in flight
  SrpCmd fifth;
  fifth.tag = 5;
  Receive(o, EncodeSrpCmd(fifth));
  EXPECT_EQ(4u, fake::submissions().size()) << "no free slot yet";
  EXPECT_EQ(1u, Snap(o).waiting);
  fake::complete_send(Qp(o));
  ASSERT_EQ(5u, fake::submissions().size()) << "the completion freed a slot";
  EXPECT_EQ(0x0500000000000000ull, fake::submissions()[4].tag);
  EXPECT_EQ(0u, Snap(o).waiting);
}

// --- queue errors ------------------------------------------------------------------------

TEST_F(ChannelTest, AReceiveErrorClosesTheChannel) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::fail_recv(Qp(o));
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "work request failed"));
}

TEST_F(ChannelTest, ASendErrorClosesTheChannelAndFreesTheCommand) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  srpt_k_cmd* cmd = LastSubmitted();
  Answer(cmd, 0);
  fake::complete_send(Qp(o), 0, false);
  EXPECT_EQ(1, cmd->releases);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
}

TEST_F(ChannelTest, APostSendFailureEndsTheCommandAndTheChannel) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  srpt_k_cmd* cmd = LastSubmitted();
  fake::fail_call(fake::Call::CmdSendRsp, -SRPT_ENOMEM);
  Answer(cmd, 0);
  EXPECT_EQ(1, cmd->releases) << "no completion will come for it";
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  // A refusal's plain send failing too.
  RunWorks();
  ExpectReleasedByChannel(o);
}

TEST_F(ChannelTest, ARefusalWhoseSendFailsFreesItsSlot) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  fake::fail_call(fake::Call::PostSend, -SRPT_ENOMEM);
  Bytes truncated = EncodeSrpCmd(SrpCmd{});
  truncated.resize(20);
  Receive(o, truncated);
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
}

// --- closing ------------------------------------------------------------------------------

TEST_F(ChannelTest, LogoutReleasesEverythingInOrder) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    fake::reset_trace();
    const Outcome o = LiveChannel(kind);
    srpt_k_qp* qp = Qp(o);
    srpt_k_session* sess = fake::sessions().back();
    Receive(o, SimpleIu(srp::kILogout, 9));
    EXPECT_TRUE(Sent(o).empty()) << "no response to a logout";
    EXPECT_EQ(0, o.id->destroys());
    EXPECT_EQ(1u, fake::queued_works());
    RunWorks();
    ExpectReleaseSequence(o, qp, sess);
    EXPECT_EQ(std::vector<int>{0}, o.id->disconnects);
    ExpectAllChannelsReleased();
    EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "SRP_I_LOGOUT")) << fake::log_dump();
  }
}

TEST_F(ChannelTest, DreqClosesWithAReply) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  EXPECT_EQ(std::vector<int>{1}, o.id->disconnects) << "a DREP";
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "initiator disconnected"));
}

TEST_F(ChannelTest, EveryCmEventThatEndsTheConnectionReleases) {
  for (srpt_cm_event ev : {SRPT_CM_EV_DISCONNECT, SRPT_CM_EV_DREP,
                           SRPT_CM_EV_TIMEWAIT_EXIT, SRPT_CM_EV_REJECTED,
                           SRPT_CM_EV_ERROR, SRPT_CM_EV_DEVICE_REMOVAL}) {
    SCOPED_TRACE(static_cast<int>(ev));
    const Outcome o = Login(GoodReq(SRPT_CM_RDMA));  // not even established
    fake::cm_event(o.id, ev);
    fake::cm_event(o.id, ev);  // twice: still one release
    EXPECT_EQ(1u, fake::queued_works());
    RunWorks();
    ExpectReleasedByChannel(o);
  }
  ExpectAllChannelsReleased();
}

TEST_F(ChannelTest, AFailingDisconnectDoesNotStopTheRelease) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::fail_call(fake::Call::CmDisconnect, -SRPT_EINVAL);
  Receive(o, SimpleIu(srp::kILogout, 1));
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}

// Case 51: a DREQ sent while the port is down kills rxe's QP1 for good.
TEST_F(ChannelTest, TheDisconnectOfAChannelClosedWhileThePortIsDownWaitsForThePort) {
  ExpectTheDisconnectWaitsFor(fake::set_ports_down_until);
}

// Case 44 on the debug kernel: a response failed because the RoCE link went
// down; the port was still ACTIVE (rxe learns of the stop only from
// NETDEV_DOWN, half a second later there), the DREQ went out and rxe's QP1
// was dead for good. The wait must look at the link, not the port state.
TEST_F(ChannelTest, TheDisconnectWaitsForALinkThatIsDownWhileItsPortIsStillActive) {
  ExpectTheDisconnectWaitsFor(fake::set_links_down_until);
}

TEST_F(ChannelTest, APortThatStaysDownDelaysTheDisconnectAtMost20Seconds) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::set_ports_down_until(~0ull);
  const uint64_t start = fake::now_ns();
  fake::fail_recv(Qp(o));
  RunWorks();
  EXPECT_EQ(std::vector<int>{0}, o.id->disconnects) << "sent after all";
  EXPECT_GE(fake::now_ns() - start, 20000000000ull);
  EXPECT_LT(fake::now_ns() - start, 20200000000ull);
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "port still down after 20000 ms"))
      << fake::log_dump();
}

TEST_F(ChannelTest, AChannelWhosePortIsUpDisconnectsWithoutWaiting) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const uint64_t start = fake::now_ns();
  Receive(o, SimpleIu(srp::kILogout, 9));
  RunWorks();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_sleep_ms"));
  EXPECT_EQ(start, fake::now_ns());
  ExpectReleasedByChannel(o);
}

TEST_F(ChannelTest, DeviceRemovalDoesNotWaitForAPortThatIsDown) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::set_ports_down_until(~0ull);
  const int queries = fake::port_queries();
  RemoveDevice(cdev_);
  EXPECT_EQ(queries, fake::port_queries());
  EXPECT_EQ(0u, fake::count_calls("srpt_k_sleep_ms"));
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased(/*devices=*/0);
}

// A review finding: a channel that closed for another reason while its port
// was down (a receive failed) waits in its release for the port; device
// removal waited for that release, so up to 20 s per such channel, for a
// port that was going away. The wait ends when the port is detached.
TEST_F(ChannelTest, DeviceRemovalDoesNotWaitForTheDisconnectOfAChannelClosedBefore) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::set_ports_down_until(~0ull);
  const uint64_t start = fake::now_ns();
  fake::fail_recv(Qp(o));  // closes the channel; its release work is queued
  RemoveDevice(cdev_);     // runs that work while it waits for the channel
  EXPECT_LT(fake::now_ns() - start, 1000000000ull) << fake::log_dump();
  EXPECT_FALSE(fake::logged(SRPT_LOG_WARNING, "port still down after")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "mlx5_0 is being removed; disconnecting after 0 ms"))
      << fake::log_dump();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased(/*devices=*/0);
}

TEST_F(ChannelTest, AFatalQpEventClosesTheChannel) {
  for (srpt_qp_event ev : {SRPT_QP_EV_FATAL, SRPT_QP_EV_REQ_ERR, SRPT_QP_EV_ACCESS_ERR,
                           SRPT_QP_EV_PATH_MIG_ERR}) {
    SCOPED_TRACE(static_cast<int>(ev));
    fake::reset_log();
    const Outcome o = LiveChannel(SRPT_CM_IB);
    fake::qp_event(Qp(o), ev, "local work queue catastrophic error");
    EXPECT_EQ(Channel::State::Closing, Snap(o).state);
    RunWorks();
    ExpectReleasedByChannel(o);
    EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                             "QP event \"local work queue catastrophic error\"; closing"))
        << fake::log_dump();
    EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "closing: fatal QP event")) << fake::log_dump();
  }
  ExpectAllChannelsReleased();
}

TEST_F(ChannelTest, OtherQpEventsAreOnlyLogged) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  fake::qp_event(Qp(o), SRPT_QP_EV_OTHER, "SQ drained");
  EXPECT_EQ(Channel::State::Live, Snap(o).state);
  EXPECT_EQ(0u, fake::queued_works());
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "QP event \"SQ drained\"")) << fake::log_dump();
}

TEST_F(ChannelTest, CommandsInFlightAreFinishedByTheRelease) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  for (uint64_t t = 0; t < 3; t++) {
    SrpCmd c;
    c.tag = t;
    Receive(o, EncodeSrpCmd(c));
  }
  Answer(fake::submissions()[0].cmd, 0);  // its response is posted
  SrpCmd w;  // a data-out command whose RDMA read is posted
  w.buf_fmt = srp::kDirect << 4;
  w.out_cnt = 1;
  w.tail = DirectDesc(1, 2, 512);
  Receive(o, EncodeSrpCmd(w));
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(LastSubmitted())));
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  for (const fake::Submission& s : fake::submissions())
    EXPECT_EQ(1, s.cmd->releases);
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}

TEST_F(ChannelTest, RequestsArrivingWhileClosingAreDropped) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_TRUE(fake::submissions().empty());
  RunWorks();
  ExpectReleasedByChannel(o);
}

TEST_F(ChannelTest, SessionClosedByTheTargetCoreReleases) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::close_session(fake::sessions()[0]);
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "session closed by the target core"));
}

TEST_F(ChannelTest, TpgDisableReleasesItsChannelsBeforeReturning) {
  const Outcome a = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srp::kMultiChanMulti;
  const Outcome b = Login(r);
  Receive(a, EncodeSrpCmd(SrpCmd{}));  // one command in flight
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  ExpectReleasedByChannel(a);
  ExpectReleasedByChannel(b);
  ExpectAllChannelsReleased();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "TPG disabled"));
}

TEST_F(ChannelTest, TpgDropReleasesItsChannelsBeforeReturning) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  DropTpg(tpg_);
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}

TEST_F(ChannelTest, TpgDisableWaitsForAChannelAlreadyClosing) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  ASSERT_EQ(1u, fake::queued_works());
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  ExpectReleasedByChannel(o);
  EXPECT_EQ(0u, fake::queued_works());
}

TEST_F(ChannelTest, DeviceRemovalReleasesItsChannels) {
  const Outcome a = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srp::kMultiChanMulti;
  const Outcome b = Login(r);
  RemoveDevice(cdev_);
  ExpectReleasedByChannel(a);
  ExpectReleasedByChannel(b);
  ExpectAllChannelsReleased(/*devices=*/0);
  EXPECT_EQ(0u, fake::live_listeners()) << "the IB/CM listener went too";
}

TEST_F(ChannelTest, ShowChannelsOfAClosingChannel) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  srpt_k_seq seq;
  srpt_core_show_channels(&seq);
  EXPECT_NE(std::string::npos, seq.text.find(" closing mlx5_0/1 128 128 1 0 127 "))
      << seq.text;
  RunWorks();
  srpt_k_seq after;
  srpt_core_show_channels(&after);
  EXPECT_EQ(std::string::npos, after.text.find(kInitiatorId0x)) << after.text;
}

// --- module unload ------------------------------------------------------------------------

TEST_F(ChannelTest, ShutdownReleasesEveryChannelAndTheListener) {
  // srpt_core_exit() is only called once every device is gone (and with it
  // every channel), so Target::shutdown() is driven directly here, on a
  // Target of the test's own with live channels and an RDMA/CM listener.
  srpt_params raw = DefaultParams();
  srpt::Result<srpt::Params> params = srpt::Params::from_module(raw);
  ASSERT_TRUE(params.ok());
  srpt::Result<srpt::Own<srpt::Target>> made = srpt::Target::create(params.value());
  ASSERT_TRUE(made.ok());
  srpt::Own<srpt::Target> target = std::move(made).value();
  FakeDevice dev("rxe0", 0x1234567800000001ull);
  dev.AddPort(MakeGid(kSubnetPrefix, 0x1234567800000002ull), SRPT_LINK_ETHERNET);
  const srpt_device_desc desc = dev.desc();
  srpt::Result<srpt::Device*> d = target->add_device(dev.kdev(), desc);
  ASSERT_TRUE(d.ok());
  srpt::Result<srpt::TargetPort*> tp = target->make_tport("1234:5678:0000:0002");
  ASSERT_TRUE(tp.ok());
  srpt_k_tpg* ktpg = fake::new_ktpg("1");
  srpt::Result<srpt::Tpg*> tpg = target->make_tpg(*tp.value(), "1", ktpg);
  ASSERT_TRUE(tpg.ok());
  ASSERT_TRUE(target->enable_tpg(*tpg.value(), true).ok());
  fake::allow_initiator(ktpg, kInitiatorAddr);
  const size_t listeners = fake::live_listeners();  // the fixture's, and ours
  ASSERT_TRUE(target->set_rdma_cm_port("5555").ok());
  ASSERT_EQ(listeners + 1, fake::live_listeners());

  std::vector<fake::CmId*> ids;
  for (int i = 0; i < 3; i++) {
    LoginReq r = GoodReq(SRPT_CM_RDMA);
    r.t_port_id = MakeId(0x1234567800000001ull, 0x1234567800000001ull);
    r.flags = srp::kMultiChanMulti;
    const Bytes priv = EncodeLoginReq(r);
    fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
    srpt_login_event ev{SRPT_CM_RDMA, id, dev.kdev(), 1, 0xffff, priv.data(),
                        priv.size(), kInitiatorAddr};
    id->in_callback++;  // the CM core's REQ callback, by hand
    const int ret = target->login(ev).to_kernel();
    id->in_callback--;
    ASSERT_EQ(0, ret) << fake::log_dump();
    ids.push_back(id);
  }
  fake::cm_event(ids[0], SRPT_CM_EV_ESTABLISHED);
  fake::cm_event(ids[1], SRPT_CM_EV_DISCONNECT);  // already closing

  target->shutdown();
  for (fake::CmId* id : ids) {
    EXPECT_EQ(1, id->channel_destroys);
    EXPECT_EQ(0, id->caller_destroys);
  }
  EXPECT_EQ(listeners, fake::live_listeners()) << "the RDMA/CM listener is gone";
  EXPECT_EQ(0u, target->rdma_cm_port());
  ExpectAllChannelsReleased(/*devices=*/2);  // the fixture's and this target's
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "module unload"));

  target->drop_tpg(tpg.value());
  target->drop_tport(tp.value());
  target->remove_device(d.value());
  target.reset();
}

TEST_F(ChannelTest, ExitAfterTheDevicesWentDestroysTheListener) {
  ASSERT_EQ(0, srpt_core_rdma_cm_port_store("5555", 4));
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  DropTpg(tpg_);
  DropTport(tport_);
  RemoveDevice(cdev_);
  ExpectReleasedByChannel(o);
  ASSERT_EQ(1u, fake::live_listeners());
  ExitCore();
  EXPECT_EQ(0u, fake::live_listeners());
}

// A channel the initiator closed just before rmmod is
// still in its release work, on another CPU, past the point where it left
// the Target's list, when module exit runs. srpt_core_exit() must not free
// the Target before that work has finished: its last steps (the channel's
// destructor) still use the Target.
TEST_F(ChannelTest, ModuleExitWaitsForAReleaseWorkStillRunning) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  ASSERT_EQ(1u, fake::queued_works());
  // The release work runs on its own thread and is preempted where it
  // signals the release, after the channel left the Target's list.
  fake::on_next_call("srpt_k_complete", [] { fake::preempt(); });
  const int worker = fake::spawn_thread([] { fake::run_works_on_this_thread(); });
  ASSERT_FALSE(fake::thread_finished(worker));
  ASSERT_EQ(1u, fake::running_works());

  // Module exit, in the shim's order: configfs is gone, then
  // ib_unregister_client() removes the device, then srpt_core_exit().
  DropTpg(tpg_);
  DropTport(tport_);
  RemoveDevice(cdev_);
  ExitCore();
  const bool finished = fake::thread_finished(worker);
  EXPECT_TRUE(finished) << "srpt_core_exit() freed the Target while a release work "
                           "still runs; the work's last steps would use it\n"
                        << fake::trace_dump();
  EXPECT_EQ(0u, fake::running_works());
  if (!finished) {
    // Resuming it now would be the use after free itself (ASan would stop
    // the whole run): abandon it.
    fake::reset_threads();
    return;
  }
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased(/*devices=*/0);
}

// --- CM events racing the release ---------------------------------------------------------

TEST_F(ChannelTest, AnRtuArrivingWhileTheReleaseDestroysTheCmIdIsIgnored) {
  // An IB/CM channel closed before its RTU: the DREQ cannot be sent yet (the
  // CM is still in REP_SENT), so the RTU may still arrive, on the CM's
  // thread, while the release work is tearing the channel down. The release
  // destroys an IB/CM cm_id before the QP, and that waits for a running
  // callback, so the RTU can only land before the QP goes.
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  fake::close_session(fake::sessions()[0]);
  fake::on_next_call("srpt_k_cm_destroy", [&] { Establish(o); });
  RunWorks();
  EXPECT_LT(fake::find_call("srpt_k_cm_destroy", o.id), fake::find_call("srpt_k_qp_destroy", nullptr))
      << "IB/CM: the cm_id goes before the QP\n" << fake::trace_dump();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_qp_ready"))
      << "a closing channel never touches its QP from a CM event";
  ExpectReleasedByChannel(o);
}

TEST_F(ChannelTest, AnRtuAfterTheCloseDoesNotMakeTheChannelLive) {
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  fake::cm_event(o.id, SRPT_CM_EV_ERROR);
  Establish(o);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  EXPECT_EQ(0u, fake::count_calls("srpt_k_qp_ready"));
  RunWorks();
  ExpectReleasedByChannel(o);
}

// --- more of the data path ------------------------------------------------------------------

TEST_F(ChannelTest, AnAbortedCommandGivesItsIuAndCreditBack) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kCredits - 1, Qp(o)->recvs.size());
  fake::target_core_aborts(LastSubmitted());
  EXPECT_EQ(kCredits, Qp(o)->recvs.size()) << "reposted at release";
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits - 1, Snap(o).req_lim) << "its credit is owed";
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Answer(LastSubmitted(), 0);
  EXPECT_EQ(2u, LastRsp(o).req_lim_delta) << "and comes back with the next response";
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  fake::complete_send(Qp(o));
}

TEST_F(ChannelTest, DataInRetriesWhenTheSendQueueIsFull) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_READ, 0x1000, 1, 4096);
  fake::fail_call(fake::Call::CmdRdmaPrepare, -SRPT_ENOMEM);
  EXPECT_EQ(-SRPT_ENOMEM, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
  EXPECT_TRUE(Posted(o).empty());
  EXPECT_EQ(kCredits - 1, Qp(o)->recvs.size()) << "no response, no repost";
  EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));  // the retry
  ASSERT_EQ(1u, Posted(o).size());
  EXPECT_EQ(1u, LastRsp(o).req_lim_delta);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

TEST_F(ChannelTest, WritePendingRetriesWhenTheReadsCannotBePosted) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_WRITE, 0x1000, 1, 4096);
  fake::fail_call(fake::Call::CmdRdmaRead, -SRPT_ENOMEM);
  EXPECT_EQ(-SRPT_ENOMEM, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  EXPECT_TRUE(cmd->segs.empty()) << "the contexts were dropped again";
  fake::fail_call(fake::Call::CmdRdmaPrepare, -SRPT_ENOMEM);
  EXPECT_EQ(-SRPT_ENOMEM, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  fake::complete_rdma_read(cmd);
  Answer(cmd, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

// -ENOSPC from the shim: the device maps RDMA through memory registrations
// and this command needs more than the QP has, with none held by another
// command: it could never be mapped. Handed on as is, the target core
// answered it after its own warning, and as -EAGAIN (what rdma_rw says) it
// retried without end and the command never ended. Data-in: CHECK
// CONDITION, ABORTED COMMAND, no data; data-out: -EINVAL, which the target
// core answers with CHECK CONDITION. A log line says why.
TEST_F(ChannelTest, DataInNeedingMoreRegistrationsThanTheQpHasIsAnswered) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_READ, 0x1000, 1, 4096);
  fake::fail_call(fake::Call::CmdRdmaPrepare, -SRPT_ENOSPC);
  EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
  ASSERT_EQ(1u, Posted(o).size());
  EXPECT_EQ(0u, Posted(o).front().rdma_wrs) << "no data";
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x02, v.status);
  EXPECT_EQ(0x0b, v.sense.at(2));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "needs more memory registrations (1 remote segments) than its "
                           "queue pair holds"))
      << fake::log_dump();
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

TEST_F(ChannelTest, DataOutNeedingMoreRegistrationsThanTheQpHasIsRefused) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_WRITE, 0x1000, 1, 4096);
  fake::fail_call(fake::Call::CmdRdmaPrepare, -SRPT_ENOSPC);
  EXPECT_EQ(-SRPT_EINVAL, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  EXPECT_TRUE(Posted(o).empty());
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "needs more memory registrations"))
      << fake::log_dump();
  // The target core answers it through queue_status.
  Answer(cmd, 0x02);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
}

TEST_F(ChannelTest, IndirectSegmentsAreClippedToWhatTheBackendMoved) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  SrpCmd c;
  c.buf_fmt = srp::kIndirect;
  c.in_cnt = 3;
  c.tail = IndirectHeader(0x9000, 7, 48, 1536);
  for (uint32_t i = 0; i < 3; i++) Append(c.tail, DirectDesc(0x1000 * (i + 1), 10 + i, 512));
  Receive(o, EncodeSrpCmd(c));
  srpt_k_cmd* cmd = LastSubmitted();
  EXPECT_EQ(1536u, fake::submissions().back().data_len);
  fake::set_cmd_result(cmd, srpt_cmd_result{0, 1, 0, 836, nullptr, 0, 700});
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
  ASSERT_EQ(2u, cmd->segs.size());
  EXPECT_EQ(512u, cmd->segs[0].len);
  EXPECT_EQ(188u, cmd->segs[1].len);
  EXPECT_EQ(0x2000u, cmd->segs[1].va);
  EXPECT_EQ(11u, cmd->segs[1].rkey);
  EXPECT_EQ(2u, Posted(o).front().rdma_wrs);
  EXPECT_EQ(836u, LastRsp(o).data_in_res);
  fake::complete_send(Qp(o));
}

TEST_F(ChannelTest, DataInWithNoDataIsJustTheResponse) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_cmd* cmd = SubmitDirect(o, SRPT_DIR_READ, 0x1000, 1, 4096);
  fake::set_cmd_result(cmd, srpt_cmd_result{0, 1, 0, 4096, nullptr, 0, 0});
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
  EXPECT_EQ(0u, fake::count_calls("srpt_k_cmd_rdma_prepare"));
  EXPECT_EQ(0u, Posted(o).front().rdma_wrs);
  fake::complete_send(Qp(o));
}

TEST_F(ChannelTest, AReleaseWithAbortedAndAnsweredCommandsLeavesNothing) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  for (uint64_t t = 0; t < 4; t++) {
    SrpCmd c;
    c.tag = t;
    Receive(o, EncodeSrpCmd(c));
  }
  fake::target_core_aborts(fake::submissions()[0].cmd);
  Answer(fake::submissions()[1].cmd, 0);
  Receive(o, SimpleIu(srp::kTskMgmt, 7, 48));  // a refusal's send in flight
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}

// --- external descriptor tables ------------------------------------------------------

namespace {

// ib_srp with cmd_sg_entries=1: the first of `n` descriptors in the IU, the
// table (n entries of `seg` bytes at va 0x1000 * (i + 1), rkey 20 + i) in
// its memory at 0xfeed0000, rkey 0x99.
SrpCmd ExternalCmd(srpt_data_dir dir, uint32_t n, uint32_t seg, uint32_t total) {
  SrpCmd c;
  const bool out = dir == SRPT_DIR_WRITE;
  c.buf_fmt = out ? srp::kIndirect << 4 : srp::kIndirect;
  (out ? c.out_cnt : c.in_cnt) = 1;
  c.tail = IndirectHeader(0xfeed0000, 0x99, n * 16, total);
  Append(c.tail, DirectDesc(0x1000, 20, seg));
  return c;
}
Bytes ExternalTable(uint32_t n, uint32_t seg) {
  Bytes b;
  for (uint32_t i = 0; i < n; i++) Append(b, DirectDesc(0x1000 * (i + 1), 20 + i, seg));
  return b;
}

// A TEST UNIT READY whose data-out descriptor announces
// 4 GiB never reaches the target core (which would allocate all of it): the
// channel answers CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN COMMAND
// INFORMATION UNIT, and the slot and credit come back.
TEST_F(ChannelTest, AnAbsurdDataLengthIsAnsweredCheckConditionByTheChannel) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  SrpCmd c;
  c.buf_fmt = srp::kDirect << 4;
  c.out_cnt = 1;
  c.tail = DirectDesc(0x10000, 7, 0xffffffffu);
  Receive(o, EncodeSrpCmd(c));
  EXPECT_TRUE(fake::submissions().empty()) << "the target core never saw it";
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x02, v.status);
  ASSERT_EQ(18u, v.sense.size());
  EXPECT_EQ(0x05, v.sense[2]) << "ILLEGAL REQUEST";
  EXPECT_EQ(0x0e, v.sense[12]) << "INVALID FIELD IN COMMAND INFORMATION UNIT";
  EXPECT_EQ(0x03, v.sense[13]);
  EXPECT_EQ(1u, v.req_lim_delta);
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

// A command that arrives while the target core stops the
// session never reaches it (target_init_cmd refuses it); the channel itself
// answers BUSY and gives the slot back, with nothing of the target core's to
// release.
TEST_F(ChannelTest, ACommandForAStoppingSessionIsAnsweredBusyByTheChannel) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  ASSERT_EQ(1u, fake::sessions().size());
  fake::sessions()[0]->stopped = true;
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_EQ(1u, Sent(o).size());
  const RspView r = LastRsp(o);
  EXPECT_EQ(srp::kRsp, r.opcode);
  EXPECT_EQ(0x08, r.status) << "BUSY";
  EXPECT_EQ(1u, r.req_lim_delta);
  EXPECT_EQ(1u, Snap(o).busy_slots);
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(0u, fake::count_calls("srpt_k_cmd_free"))
      << "the target core holds no reference to drop";
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

// The release work runs (on another kernel thread) at the
// very moment a dispatch posts its response; it must wait for that dispatch
// before the QP goes.
TEST_F(ChannelTest, ReleaseWaitsForADispatchThatIsPosting) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Outcome o = LiveChannel(kind);
    srpt_k_qp* const qp = Qp(o);
    // Keeps the channel's memory for the checks below, whatever the release
    // does.
    srpt::RefPtr<Channel> keep(&Chan(o));
    int releaser = -1;
    fake::on_next_call("srpt_k_post_send", [&] {
      releaser = fake::spawn_thread([&] {
        fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
        fake::run_works_on_this_thread();
      });
    });
    // Refused by the channel (too short for an SRP_CMD): its response is
    // posted from the dispatch itself.
    Receive(o, SimpleIu(srp::kCmd, 5, 20));
    EXPECT_NE(-1, releaser);
    EXPECT_EQ(0u, fake::run_threads());
    EXPECT_TRUE(fake::thread_finished(releaser));
    ExpectReleasedByChannel(o);
    const uint64_t posted = fake::find_call("srpt_k_post_send", qp);
    const uint64_t gone = fake::find_call("srpt_k_qp_destroy", qp);
    EXPECT_NE(0u, posted);
    EXPECT_LT(posted, gone) << fake::trace_dump();
    EXPECT_TRUE(fake::take_violations().empty());
  }
}

}  // namespace

class ExternalTableTest : public ChannelTest {
 protected:
  // The command whose table read is posted last on `o`.
  srpt_k_cmd* Fetching(const Outcome& o) {
    for (auto it = Qp(o)->sends.rbegin(); it != Qp(o)->sends.rend(); ++it)
      if (it->kind == fake::PostedSend::Kind::Fetch) return it->cmd;
    ADD_FAILURE() << "no table read posted";
    return nullptr;
  }
  // A data-in command of three 512-byte segments in an external table, for
  // `len` bytes: fetched, submitted and its data queued (the response is
  // posted, not yet completed).
  srpt_k_cmd* FetchedDataIn(const Outcome& o, uint32_t len) {
    Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_READ, 3, 512, len)));
    srpt_k_cmd* cmd = Fetching(o);
    if (cmd == nullptr) return nullptr;
    fake::complete_fetch(cmd, ExternalTable(3, 512));
    cmd = LastSubmitted();
    fake::set_cmd_result(cmd, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, len});
    EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
    EXPECT_EQ(3u, cmd->segs.size());
    return cmd;
  }
};

TEST_F(ExternalTableTest, TheTableIsFetchedThenTheCommandSubmitted) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 5, 4096, 5 * 4096)));
  EXPECT_TRUE(fake::submissions().empty()) << "not before its table is here";
  srpt_k_cmd* cmd = Fetching(o);
  ASSERT_NE(nullptr, cmd);
  const fake::PostedSend* f = fake::posted_fetch(cmd);
  ASSERT_NE(nullptr, f);
  EXPECT_EQ(0xfeed0000u, f->fetch.va);
  EXPECT_EQ(0x99u, f->fetch.rkey);
  EXPECT_EQ(80u, f->fetch.len) << "the whole table";
  EXPECT_EQ(1u, Snap(o).busy_slots);

  fake::complete_fetch(cmd, ExternalTable(5, 4096));
  ASSERT_EQ(1u, fake::submissions().size());
  EXPECT_EQ(cmd, LastSubmitted());
  EXPECT_EQ(5u * 4096, fake::submissions().back().data_len);
  EXPECT_EQ(SRPT_DIR_WRITE, fake::submissions().back().dir);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "first external descriptor table fetched (5 descriptors)"))
      << fake::log_dump();

  fake::set_cmd_result(cmd, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, 5 * 4096});
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(cmd)));
  ASSERT_EQ(5u, cmd->segs.size()) << "every segment of the fetched table";
  for (uint32_t i = 0; i < 5; i++) {
    EXPECT_EQ(0x1000u * (i + 1), cmd->segs[i].va);
    EXPECT_EQ(20 + i, cmd->segs[i].rkey);
    EXPECT_EQ(4096u, cmd->segs[i].len);
  }
  fake::complete_rdma_read(cmd);
  EXPECT_EQ(1, cmd->executes);
  Answer(cmd, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, cmd->releases);
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);

  // A data-in command on the same slot reads a fresh table.
  cmd = FetchedDataIn(o, 1400);
  ASSERT_NE(nullptr, cmd);
  ASSERT_EQ(3u, cmd->segs.size());
  EXPECT_EQ(376u, cmd->segs[2].len) << "clipped to the data length";
  fake::complete_send(Qp(o));
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectAllChannelsReleased();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "2 external descriptor tables fetched"))
      << fake::log_dump();
}

TEST_F(ExternalTableTest, ATableNotCoveringTheDataLengthIsRefused) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 4, 512, 4 * 512 + 1)));
  srpt_k_cmd* cmd = Fetching(o);
  const size_t sent = Sent(o).size();
  fake::complete_fetch(cmd, ExternalTable(4, 512));
  EXPECT_TRUE(fake::submissions().empty());
  ASSERT_EQ(sent + 1, Sent(o).size());
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x02, v.status);
  EXPECT_EQ(0xa0a1a2a3a4a5a6a7ull, v.tag);
  ASSERT_EQ(18u, v.sense.size());
  EXPECT_EQ(0x05, v.sense[2]);
  EXPECT_EQ(0x0e, v.sense[12]);
  EXPECT_EQ(0x03, v.sense[13]);
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_EQ(Channel::State::Live, Snap(o).state);
}

TEST_F(ExternalTableTest, MalformedTablesAreRefusedBeforeAnyFetch) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  SrpCmd too_many = ExternalCmd(SRPT_DIR_WRITE, 257, 512, 512);
  SrpCmd odd_len = ExternalCmd(SRPT_DIR_WRITE, 2, 512, 512);
  odd_len.tail[15] = 33;  // table_desc.len 33
  SrpCmd empty = ExternalCmd(SRPT_DIR_READ, 0, 512, 512);
  for (const SrpCmd& c : {too_many, odd_len, empty}) {
    const size_t sent = Sent(o).size();
    Receive(o, EncodeSrpCmd(c));
    ASSERT_EQ(sent + 1, Sent(o).size());
    EXPECT_EQ(0x02, LastRsp(o).status);
    fake::complete_send(Qp(o));
  }
  EXPECT_EQ(0u, fake::count_calls("srpt_k_cmd_fetch"));
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "too many data segments"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "not a multiple of 16"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "empty indirect descriptor table"));
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

TEST_F(ExternalTableTest, AFailedFetchClosesTheChannelAndFreesTheSlot) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 2, 512, 1024)));
  srpt_k_cmd* cmd = Fetching(o);
  const size_t sent = Sent(o).size();
  fake::complete_fetch(cmd, {}, false);
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_EQ(sent, Sent(o).size()) << "the QP is in the error state: no response";
  EXPECT_EQ(Channel::State::Closing, Snap(o).state)
      << "a failed RDMA read leaves the QP in the error state";
  EXPECT_EQ(0u, Snap(o).busy_slots);
  RunWorks();
  ExpectAllChannelsReleased();
}

TEST_F(ExternalTableTest, AFetchThatCannotBePostedIsAnswered) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  fake::fail_call(fake::Call::CmdFetch, -SRPT_ENOMEM);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_READ, 2, 512, 1024)));
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_EQ(0x02, LastRsp(o).status);
  EXPECT_EQ(0x0b, LastRsp(o).sense.at(2));
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
}

TEST_F(ExternalTableTest, AReleaseFlushesAFetchInFlight) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 2, 512, 1024)));
  ASSERT_NE(nullptr, Fetching(o));
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
  EXPECT_TRUE(fake::submissions().empty());
}

// A login makes no descriptor-table buffers (they were
// a ring of 64 x 4 KiB per channel, zeroed and mapped in every login). A
// slot makes its own with the first command that needs it, and keeps it.
TEST_F(ExternalTableTest, ASlotMakesItsTableBufferOnFirstNeedAndKeepsIt) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
  const size_t before = fake::live_rings();
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  EXPECT_EQ(before + 2, fake::live_rings()) << "receive and send rings only";
  // Slots are taken oldest first: five commands use slots 0 1 2 3 0.
  for (uint32_t i = 0; i < 5; i++) {
    SCOPED_TRACE("command " + std::to_string(i));
    srpt_k_cmd* cmd = FetchedDataIn(o, 1536);
    ASSERT_NE(nullptr, cmd);
    EXPECT_EQ(before + 2 + std::min<size_t>(i + 1, 4), fake::live_rings());
    ASSERT_EQ(3u, cmd->segs.size());
    EXPECT_EQ(0x3000u, cmd->segs[2].va) << "decoded from the fetched table";
    fake::complete_send(Qp(o));
  }
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectAllChannelsReleased();
  EXPECT_EQ(before, fake::live_rings()) << "the table buffers go with the channel";
}

// ib_srp with cmd_sg_entries=255: the whole table in the IU. Up to
// Command::kInlineSegs entries need no buffer; more go to the slot's.
TEST_F(ExternalTableTest, AnInIuTableBeyondTheInlineStoreUsesTheSlotsTableBuffer) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  size_t rings = fake::live_rings();
  for (uint32_t n : {srpt::Command::kInlineSegs, srpt::Command::kInlineSegs + 1, 200u}) {
    SCOPED_TRACE(std::to_string(n) + " descriptors in the IU");
    SrpCmd c;
    c.buf_fmt = srp::kIndirect;
    c.in_cnt = static_cast<uint8_t>(n);
    c.tail = IndirectHeader(0x9000, 7, n * 16, n * 512);
    for (uint32_t i = 0; i < n; i++) Append(c.tail, DirectDesc(0x1000 * (i + 1), 10 + i, 512));
    Receive(o, EncodeSrpCmd(c));
    EXPECT_EQ(0u, fake::count_calls("srpt_k_cmd_fetch"));
    srpt_k_cmd* cmd = LastSubmitted();
    ASSERT_NE(nullptr, cmd);
    fake::set_cmd_result(cmd, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, n * 512});
    ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmd)));
    ASSERT_EQ(n, cmd->segs.size());
    for (uint32_t i = 0; i < n; i++) {
      EXPECT_EQ(0x1000u * (i + 1), cmd->segs[i].va);
      EXPECT_EQ(10 + i, cmd->segs[i].rkey);
    }
    EXPECT_EQ(rings + (n > srpt::Command::kInlineSegs ? 1 : 0), fake::live_rings());
    // 200 writes and the response exceed the queue: a part, then the rest.
    while (!Qp(o)->sends.empty()) fake::complete_send(Qp(o));
    EXPECT_EQ(0u, Snap(o).busy_slots);
    rings = fake::live_rings();
  }
}

// No memory for the buffer: the command is answered BUSY (which the
// initiator retries), nothing is fetched or submitted, the slot and the
// credit come back, the channel goes on, and the next command gets one.
TEST_F(ExternalTableTest, NoMemoryForATableBufferIsAnsweredBusy) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const size_t rings = fake::live_rings();
  fake::fail_call(fake::Call::RingCreate, -SRPT_ENOMEM);
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 2, 512, 1024)));
  EXPECT_EQ(0u, fake::count_calls("srpt_k_cmd_fetch"));
  EXPECT_TRUE(fake::submissions().empty());
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x08, v.status) << "BUSY";
  EXPECT_EQ(0xa0a1a2a3a4a5a6a7ull, v.tag);
  EXPECT_TRUE(v.sense.empty());
  EXPECT_EQ(1u, v.req_lim_delta);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO,
                           "no memory for a descriptor table buffer: command answered BUSY"))
      << fake::log_dump();
  EXPECT_EQ(rings, fake::live_rings());
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
  EXPECT_EQ(Channel::State::Live, Snap(o).state);

  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_WRITE, 2, 512, 1024)));
  ASSERT_NE(nullptr, Fetching(o));
  EXPECT_EQ(rings + 1, fake::live_rings());
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectAllChannelsReleased();
}

// --- send-queue room -------------------------------------------------------------------
// srp_sq_size 4: four slots and a send queue of four work requests. The
// fake QP reports any post beyond that as a violation (the real one would
// refuse it, killing the channel).

class SendQueueTest : public ChannelTest {
 protected:
  Outcome SmallQueue() {
    EXPECT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
    Outcome o = LiveChannel(SRPT_CM_RDMA);
    EXPECT_EQ(4u, Qp(o)->params.send_depth);
    return o;
  }
  // A data-in (or, out: data-out) command of `segs` segments of `len`
  // bytes (each len / kFakeBytesPerWr work requests, at least one),
  // submitted, tag `tag`.
  srpt_k_cmd* DataIn(const Outcome& o, uint64_t tag, uint32_t segs, uint32_t len = 512,
                     bool out = false) {
    SrpCmd c;
    c.tag = tag;
    c.buf_fmt = out ? srp::kIndirect << 4 : srp::kIndirect;
    (out ? c.out_cnt : c.in_cnt) = static_cast<uint8_t>(segs);
    c.tail = IndirectHeader(0x9000, 7, segs * 16, segs * len);
    for (uint32_t i = 0; i < segs; i++)
      Append(c.tail, DirectDesc(0x100000ull * (i + 1), 10, len));
    Receive(o, EncodeSrpCmd(c));
    srpt_k_cmd* cmd = LastSubmitted();
    fake::set_cmd_result(cmd, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, segs * len});
    return cmd;
  }
  srpt_k_cmd* DataOut(const Outcome& o, uint64_t tag, uint32_t segs, uint32_t len = 512) {
    return DataIn(o, tag, segs, len, true);
  }
  static uint64_t TagOf(const fake::PostedSend& s) { return DecodeRsp(s.bytes).tag; }
  // `c`'s chain went in part: the channel closes, and the command keeps
  // its mapped contexts and has not ended; the release work flushes the
  // chain, and the command ends once.
  void ExpectKeptUntilTheFlush(const Outcome& o, srpt_k_cmd* c) {
    EXPECT_EQ(Channel::State::Closing, Snap(o).state);
    EXPECT_FALSE(c->segs.empty()) << "its contexts stay mapped";
    EXPECT_EQ(0, c->fails);
    EXPECT_EQ(0, c->releases);
    RunWorks();
    EXPECT_EQ(1, c->releases);
    ExpectReleasedByChannel(o);
    ExpectAllChannelsReleased();
  }
};

TEST_F(SendQueueTest, ResponsesWaitInOrderForRoomAndNoneIsLost) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* cmds[4];
  for (uint64_t t = 0; t < 4; t++) cmds[t] = DataIn(o, t, 1);
  // Each needs two work requests: a write and its response.
  for (srpt_k_cmd* c : cmds) EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(c)));
  ASSERT_EQ(2u, Qp(o)->sends.size()) << "only two fit";
  EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, Qp(o)->sends[0].kind);
  EXPECT_EQ(1u, Qp(o)->sends[0].rdma_wrs);
  fake::complete_send(Qp(o));
  ASSERT_EQ(2u, Qp(o)->sends.size()) << "the third went out as room came back";
  fake::complete_send(Qp(o));
  fake::complete_send(Qp(o));
  fake::complete_send(Qp(o));
  EXPECT_TRUE(Qp(o)->sends.empty());
  // In the order the target core handed them over.
  const auto& sent = Sent(o);
  ASSERT_EQ(4u, sent.size());
  for (uint64_t t = 0; t < 4; t++) EXPECT_EQ(t, TagOf(sent[t])) << t;
  for (srpt_k_cmd* c : cmds) EXPECT_EQ(1, c->releases);
  EXPECT_EQ(4u, Snap(o).req_lim) << "every credit back, exactly once";
  EXPECT_EQ(0u, Snap(o).busy_slots);
}

TEST_F(SendQueueTest, DataOutReadsWaitBehindResponsesAndResume) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 3);  // three writes and a response: the whole queue
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  srpt_k_cmd* out = SubmitDirect(o, SRPT_DIR_WRITE, 0x5000, 9, 4096);
  fake::set_cmd_result(out, srpt_cmd_result{0, 0, 0, 0, nullptr, 0, 4096});
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out))) << "it waits; no error";
  EXPECT_EQ(nullptr, fake::posted_fetch(out));
  ASSERT_EQ(1u, Qp(o)->sends.size()) << "the read is not posted yet";
  fake::complete_send(Qp(o));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  EXPECT_EQ(fake::PostedSend::Kind::RdmaRead, Qp(o)->sends[0].kind);
  fake::complete_rdma_read(out);
  EXPECT_EQ(1, out->executes);
  Answer(out, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, out->releases);
  EXPECT_EQ(4u, Snap(o).req_lim);
}

TEST_F(SendQueueTest, TableReadsAndRefusalsTakeRoomToo) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 3);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  // A table read and a refusal's response arrive while the queue is full.
  Receive(o, EncodeSrpCmd(ExternalCmd(SRPT_DIR_READ, 2, 512, 1024)));
  SrpCmd bidi;
  bidi.buf_fmt = (srp::kDirect << 4) | srp::kDirect;
  bidi.tail = DirectDesc(1, 2, 3);
  Receive(o, EncodeSrpCmd(bidi));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  fake::complete_send(Qp(o));
  ASSERT_EQ(2u, Qp(o)->sends.size()) << "both, in arrival order";
  EXPECT_EQ(fake::PostedSend::Kind::Fetch, Qp(o)->sends[0].kind);
  EXPECT_EQ(fake::PostedSend::Kind::Send, Qp(o)->sends[1].kind);
  fake::complete_fetch(Qp(o)->sends[0].cmd, ExternalTable(2, 512));
  fake::complete_send(Qp(o));
  ASSERT_EQ(2u, fake::submissions().size());
  Answer(LastSubmitted(), 0);
  fake::complete_send(Qp(o));
  EXPECT_TRUE(Qp(o)->sends.empty());
  EXPECT_EQ(4u, Snap(o).req_lim);
  EXPECT_EQ(0u, Snap(o).busy_slots);
}

// Each part of a transfer must fit the whole queue, so each context must
// (with the response beside the last for data-in): a command with a longer
// one could never be posted and is answered at once.
TEST_F(SendQueueTest, ACommandWithASegmentLongerThanTheWholeQueueIsAnswered) {
  const Outcome o = SmallQueue();
  // One segment of four work requests, and its response: 5 > 4.
  srpt_k_cmd* in = DataIn(o, 1, 1, 4 * fake::kFakeBytesPerWr);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  EXPECT_EQ(0u, Qp(o)->sends[0].rdma_wrs) << "no data: the contexts were dropped";
  const RspView v = LastRsp(o);
  EXPECT_EQ(0x02, v.status);
  EXPECT_EQ(0x0b, v.sense.at(2));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "needs 5 send work requests for one segment, queue holds 4"));
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, in->releases);
  // Data-out: five reads of one segment never fit; the target core fails it.
  srpt_k_cmd* out = DataOut(o, 2, 1, 5 * fake::kFakeBytesPerWr);
  EXPECT_EQ(-SRPT_EINVAL, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  EXPECT_TRUE(out->segs.empty()) << "unprepared";
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "needs 5 send work requests for one segment, queue holds 4"));
  Answer(out, 0x02);
  fake::complete_send(Qp(o));
  // Four reads of one segment fit (the response comes after them).
  srpt_k_cmd* big = DataOut(o, 3, 1, 4 * fake::kFakeBytesPerWr);
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(big))) << "four reads fit";
  ASSERT_EQ(1u, Qp(o)->sends.size());
  EXPECT_EQ(4u, Qp(o)->sends[0].rdma_wrs);
  fake::complete_rdma_read(big);
  EXPECT_EQ(1, big->executes);
  Answer(big, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, big->releases);
  EXPECT_EQ(4u, Snap(o).req_lim);
}

// ib_srp with 255 descriptors needs about 260 work requests for one
// command; the queue holds the slots' responses and one long segment. The
// writes go in parts of whole contexts, each after the last completed, and
// the last part goes chained in front of the response.
TEST_F(SendQueueTest, DataInLongerThanTheWholeQueueIsWrittenInPartsThenAnswered) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 7);  // seven writes and a response: 8 > 4
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  EXPECT_EQ(fake::PostedSend::Kind::RdmaWrite, Qp(o)->sends[0].kind);
  EXPECT_EQ(0u, Qp(o)->sends[0].first_ctx);
  EXPECT_EQ(4u, Qp(o)->sends[0].ctxs) << "as many contexts as the queue holds";
  fake::complete_rdma_write(in);
  // Three left: they and the response fit.
  ASSERT_EQ(1u, Qp(o)->sends.size());
  EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, Qp(o)->sends[0].kind);
  EXPECT_EQ(3u, Qp(o)->sends[0].rdma_wrs);
  EXPECT_EQ(1, in->parts) << "one part, then the rest with the response";
  EXPECT_EQ(0x00, LastRsp(o).status);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, in->releases);
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_FALSE(fake::logged(SRPT_LOG_WARNING, "send work requests"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "first transfer longer than the send queue "
                                          "(8 work requests, queue holds 4), posted in parts"));
  Receive(o, SimpleIu(srp::kILogout, 9));
  RunWorks();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "1 transfers posted in parts"));
}

TEST_F(SendQueueTest, DataOutLongerThanTheWholeQueueIsReadInPartsThenExecuted) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 10);  // ten reads: 4 + 4 + 2
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  for (uint32_t first : {0u, 4u, 8u}) {
    SCOPED_TRACE("part from context " + std::to_string(first));
    ASSERT_EQ(1u, Qp(o)->sends.size());
    EXPECT_EQ(fake::PostedSend::Kind::RdmaRead, Qp(o)->sends[0].kind);
    EXPECT_EQ(first, Qp(o)->sends[0].first_ctx);
    EXPECT_EQ(first == 8 ? 2u : 4u, Qp(o)->sends[0].rdma_wrs);
    EXPECT_EQ(0, out->executes) << "not before the last part";
    fake::complete_rdma_read(out);
  }
  EXPECT_EQ(1, out->executes) << "once, after every part, with the contexts unmapped";
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "(10 work requests, queue holds 4), posted in parts"));
  EXPECT_TRUE(out->segs.empty());
  Answer(out, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, out->releases);
  EXPECT_EQ(4u, Snap(o).req_lim);
}

// Parts take their room first come, first served like any chain: the next
// part of a long transfer waits behind responses that asked before it.
TEST_F(SendQueueTest, ANextPartWaitsForRoomBehindEarlierCommands) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 6);  // 4 + 2 reads
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  // Meanwhile two data-in commands of one write each: neither fits (2 + 2).
  srpt_k_cmd* a = DataIn(o, 2, 1);
  srpt_k_cmd* b = DataIn(o, 3, 1);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(a)));
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(b)));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  fake::complete_rdma_read(out);
  // Both responses (2 + 2) take the queue; the second part (2) waits.
  ASSERT_EQ(2u, Qp(o)->sends.size());
  EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, Qp(o)->sends[0].kind);
  EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, Qp(o)->sends[1].kind);
  fake::complete_send(Qp(o));
  ASSERT_EQ(2u, Qp(o)->sends.size());
  EXPECT_EQ(fake::PostedSend::Kind::RdmaRead, Qp(o)->sends[1].kind);
  EXPECT_EQ(4u, Qp(o)->sends[1].first_ctx);
  fake::complete_send(Qp(o));
  fake::complete_rdma_read(out);
  EXPECT_EQ(1, out->executes);
  Answer(out, 0);
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, a->releases);
  EXPECT_EQ(1, b->releases);
  EXPECT_EQ(1, out->releases);
}

// A part that fails: data-out fails the command (CHECK CONDITION) and posts
// nothing more; data-in leaves the QP in the error state, so no response
// can reach the initiator: the channel closes and the command ends
// unanswered. A part that cannot be posted ends the same way.
TEST_F(SendQueueTest, AFailedDataOutPartFailsTheCommandAndPostsNoMore) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 10);
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  fake::complete_rdma_read(out);
  fake::complete_rdma_read(out, false);
  EXPECT_EQ(2, out->parts) << "the third part is never posted";
  EXPECT_EQ(0, out->executes);
  EXPECT_EQ(1, out->fails);
  EXPECT_TRUE(out->segs.empty()) << "unprepared";
  EXPECT_EQ(0x02, LastRsp(o).status);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "RDMA read failed: remote access error"));
  fake::complete_send(Qp(o));
  EXPECT_EQ(1, out->releases);
  Receive(o, SimpleIu(srp::kILogout, 9));
  RunWorks();
  ExpectReleasedByChannel(o);
}

// A failed data-in part leaves the QP in the error state: no response can
// reach the initiator, so the channel closes and the command ends
// unanswered.
TEST_F(SendQueueTest, AFailedDataInPartEndsTheCommandUnansweredAndTheChannel) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 10);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  fake::complete_rdma_write(in, false);
  EXPECT_EQ(1, in->parts);
  EXPECT_EQ(1, in->releases) << "ended without a response";
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "RDMA write failed: remote access error"));
  RunWorks();
  ExpectReleasedByChannel(o);
}

// A part that cannot be posted gets no completion: the command ends there.
TEST_F(SendQueueTest, ADataInPartThatCannotBePostedEndsTheCommandAndTheChannel) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 10);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  fake::fail_call(fake::Call::CmdRdmaWrite, -SRPT_ENOMEM);
  fake::complete_rdma_write(in);
  EXPECT_EQ(1, in->parts);
  EXPECT_EQ(1, in->releases) << "no completion will come for the part";
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
}

TEST_F(SendQueueTest, ADataOutPartThatCannotBePostedFailsTheCommand) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 10);
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  fake::fail_call(fake::Call::CmdRdmaRead, -SRPT_ENOMEM);
  fake::complete_rdma_read(out);
  EXPECT_EQ(1, out->parts);
  EXPECT_EQ(1, out->fails);
  EXPECT_EQ(0, out->executes);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  fake::complete_send(Qp(o), 0, false);
  EXPECT_EQ(1, out->releases);
  RunWorks();
  ExpectReleasedByChannel(o);
}

// A channel that closes between parts: the next part is posted into the
// error state and flushed, and the command ends once, without data.
TEST_F(SendQueueTest, AChannelClosingBetweenPartsEndsTheCommandOnce) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 10);
  srpt_k_cmd* out = DataOut(o, 2, 10);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  Receive(o, SimpleIu(srp::kILogout, 9));
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_EQ(1, in->releases);
  EXPECT_EQ(1, out->releases);
  EXPECT_EQ(0, out->executes);
}

TEST_F(SendQueueTest, WaitingCommandsAreFlushedWhenTheChannelCloses) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* cmds[4];
  for (uint64_t t = 0; t < 4; t++) cmds[t] = DataIn(o, t, 1);
  for (srpt_k_cmd* c : cmds) EXPECT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(c)));
  ASSERT_EQ(2u, Qp(o)->sends.size());
  Receive(o, SimpleIu(srp::kILogout, 8));
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}

// A closing channel keeps counting its send queue: close() only queues the
// release work, and until that work moves the QP to the error state the QP
// is live. Room that comes back in that window goes to the waiters in
// order, as much as there is, never more.
TEST_F(SendQueueTest, AClosingChannelNeverOverfillsItsLiveQueue) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* big = DataIn(o, 1, 3);  // three writes and a response: the whole queue
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(big)));
  srpt_k_cmd* cmds[3];
  for (uint64_t t = 0; t < 3; t++) {
    cmds[t] = DataIn(o, 10 + t, 1);  // a write and a response each
    ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(cmds[t])));
  }
  Receive(o, SimpleIu(srp::kILogout, 9));  // closes; the release work waits
  ASSERT_EQ(Channel::State::Closing, Snap(o).state);
  ASSERT_FALSE(Qp(o)->error) << "the QP is live until the release work runs";
  fake::complete_send(Qp(o));
  EXPECT_EQ(2u, Qp(o)->sends.size()) << "two of the three fit, the third waits";
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_EQ(1, big->releases);
  for (srpt_k_cmd* c : cmds) EXPECT_EQ(1, c->releases);
  ExpectAllChannelsReleased();
}

// A post that fails part-way leaves the head of its chain on the send
// queue without a completion of its own: those work requests still move
// the command's data when the QP runs or flushes them. The command keeps
// its buffer and its mapped contexts until the chain's completion says the
// queue is past them, and only then ends (data-out: failed, CHECK
// CONDITION; data-in: unanswered); the channel closes.
TEST_F(SendQueueTest, ADataOutPartPostedInPartKeepsItsBuffersUntilItsFlush) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 10);  // parts of 4 + 4 + 2 reads
  fake::break_next_post(fake::Call::CmdRdmaRead, 2);
  EXPECT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)))
      << "the command is the channel's now; the target core must not retry or fail it";
  ExpectKeptUntilTheFlush(o, out);
  EXPECT_EQ(0, out->executes);
  EXPECT_EQ(1, out->fails) << "failed once the chain was flushed";
}

TEST_F(SendQueueTest, ALaterDataOutPartPostedInPartKeepsItsBuffersUntilItsFlush) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* out = DataOut(o, 1, 10);
  ASSERT_EQ(0, srpt_core_cmd_write_pending(fake::cmd_ctx(out)));
  fake::break_next_post(fake::Call::CmdRdmaRead, 3);
  fake::complete_rdma_read(out);  // the second part breaks
  ExpectKeptUntilTheFlush(o, out);
  EXPECT_EQ(1, out->fails);
}

TEST_F(SendQueueTest, ADataInPartPostedInPartKeepsItsBuffersUntilItsFlush) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 10);
  fake::break_next_post(fake::Call::CmdRdmaWrite, 2);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  ExpectKeptUntilTheFlush(o, in);  // ended unanswered
}

TEST_F(SendQueueTest, AResponseWhoseWritesWentInPartKeepsItsBuffersUntilItsFlush) {
  const Outcome o = SmallQueue();
  srpt_k_cmd* in = DataIn(o, 1, 2);  // two writes and the response: one chain
  fake::break_next_post(fake::Call::CmdSendRsp, 1);
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(in)));
  ExpectKeptUntilTheFlush(o, in);
}

// The fake keeps to the shim's contract: a chain of one request (here a
// response without data) either goes or fails with an errno; it is never
// reported posted in part. A test that arms that is told so.
TEST_F(SendQueueTest, TheFakeRefusesToBreakAChainOfOneRequest) {
  const Outcome o = SmallQueue();
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_FALSE(fake::submissions().empty());
  srpt_k_cmd* cmd = fake::submissions().back().cmd;
  fake::break_next_post(fake::Call::CmdSendRsp, 1);
  (void)srpt_core_cmd_queue_status(fake::cmd_ctx(cmd));
  ExpectOneViolation("a chain of one request cannot go in part");
  while (fake::flush_one(Qp(o))) {
  }
  RunWorks();
}

// Waiters are resumed one after another by whoever gave room back: a
// waiter whose post fails gives its room back too, and that must not
// resume the next waiter one stack frame deeper (a kernel stack holds
// a few dozen such frames, and a channel has up to 128 waiters).
TEST_F(SendQueueTest, WaitersWhosePostsFailAreResumedInALoopNotARecursion) {
  EXPECT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "64", 2));
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  ASSERT_EQ(64u, Qp(o)->params.send_depth);
  srpt_k_cmd* big = DataIn(o, 1, 63);  // 63 writes and the response: the whole queue
  ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(big)));
  ASSERT_EQ(1u, Qp(o)->sends.size());
  constexpr int kWaiters = 40;
  std::vector<srpt_k_cmd*> waiters;
  for (int t = 0; t < kWaiters; t++) {
    waiters.push_back(DataIn(o, 100 + t, 1));
    ASSERT_EQ(0, srpt_core_cmd_queue_data_in(fake::cmd_ctx(waiters.back())));
  }
  ASSERT_EQ(1u, Qp(o)->sends.size()) << "every one waits";
  fake::fail_call(fake::Call::CmdSendRsp, -SRPT_ENOMEM, 0, /*and_later=*/true);
  fake::reset_post_stack();
  fake::complete_send(Qp(o));
  fake::disarm_call(fake::Call::CmdSendRsp);
  EXPECT_EQ(static_cast<size_t>(kWaiters), fake::injected_call_failures(fake::Call::CmdSendRsp));
  EXPECT_LT(fake::post_stack_span(), 512u)
      << "each failed post resumed the next waiter deeper on the stack";
  for (srpt_k_cmd* c : waiters) EXPECT_EQ(1, c->releases);
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectAllChannelsReleased();
}
