// SPDX-License-Identifier: GPL-2.0
// What a successful login answers (SRP_LOGIN_RSP), what it grants
// (immediate data, credits, IU sizes) and what it does to other channels of
// the same I_T nexus (SINGLE replaces them, MULTI keeps them).
#include <srpt/abi/fabric.h>
#include <srpt/core/send_queue.h>

#include "../harness/login_test.h"

namespace {

using srpt::kMaxContextWrs;
using srpt::srp::kRspImmedSupported;
using srpt::srp::kRspMaintained;
using srpt::srp::kRspNoChan;
using srpt::srp::kRspTerminated;

class LoginResponseTest : public LoginTest {
 protected:
  // Logs in with `r` on both CMs and returns the rsp_flags of each.
  std::vector<uint8_t> FlagsOnBothCms(LoginReq r) {
    std::vector<uint8_t> out;
    for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
      r.kind = kind;
      r.flags |= srpt::srp::kMultiChanMulti;  // keep the earlier channels
      const Outcome o = Login(r);
      ExpectAccepted(o);
      out.push_back(Rsp(o).rsp_flags);
    }
    return out;
  }
  uint8_t ImmedFlags(uint16_t offset, bool requested, uint32_t it_iu_len = 8260) {
    LoginReq r = GoodReq();
    r.imm_off = offset;
    r.it_iu_len = it_iu_len;
    if (requested) r.flags |= srpt::srp::kImmedRequested;
    const std::vector<uint8_t> f = FlagsOnBothCms(r);
    EXPECT_EQ(f[0] & kRspImmedSupported, f[1] & kRspImmedSupported)
        << "both CMs grant alike";
    return f[0] & kRspImmedSupported;
  }
};

}  // namespace

TEST_F(LoginResponseTest, ResponseFields) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    LoginReq r = GoodReq(kind);
    r.tag = 0xfedcba9876543210ull;
    r.it_iu_len = 1000;
    r.flags = srpt::srp::kMultiChanMulti;
    const Outcome o = Login(r);
    ExpectAccepted(o);
    const LoginRspView v = Rsp(o);
    EXPECT_EQ(0xc0, v.opcode);
    EXPECT_EQ(0xfedcba9876543210ull, v.tag);
    EXPECT_EQ(1000u, v.max_it_iu_len) << "the requested length, never more";
    EXPECT_EQ(256u, v.max_ti_iu_len) << "srp_max_rsp_size";
    EXPECT_EQ(128u, v.req_lim_delta) << "in-tree's min(128, max_qp_wr)";
    EXPECT_EQ(0x0006, v.buf_fmt);
    // Reserved bytes of the response are zero.
    const Bytes& b = o.id->accepts[0];
    for (size_t i : {1, 2, 3, 27, 40, 51}) EXPECT_EQ(0, b[i]) << "byte " << i;
  }
}

TEST_F(LoginResponseTest, TheGrantSizesTheChannel) {
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.it_iu_len = 512;
  const Outcome o = Login(r);
  ExpectAccepted(o);
  srpt_k_qp* qp = Qp(o);
  ASSERT_NE(nullptr, qp);
  EXPECT_EQ(128u, qp->params.recv_depth);
  EXPECT_EQ(128u + kMaxContextWrs, qp->params.send_depth)
      << "a response per slot and one longest RDMA context, below srp_sq_size";
  EXPECT_EQ(0xffff, qp->params.pkey);
  EXPECT_EQ(o.id->context, qp->params.ctx) << "completions reach the channel";
  ASSERT_EQ(128u, qp->recvs.size()) << "every receive IU posted before the accept";
  EXPECT_EQ(512u, qp->recvs[0].ring->size);
  EXPECT_LT(fake::find_last_call("srpt_k_post_recv"),
            fake::find_call("srpt_k_cm_accept"));
  EXPECT_EQ(128u, fake::live_cmds());
}

// A device whose queues are shorter than in-tree's 128 credits: the login
// grants what its receive queue holds beside the drain request, and the
// channel is made (a grant of max_qp_wr would make a QP the device refuses).
class SmallQueueDeviceLoginTest : public LoginResponseTest {
 protected:
  void TuneDevice(FakeDevice& dev) override { dev.SetMaxQpWr(100); }
};

TEST_F(SmallQueueDeviceLoginTest, CreditsAreWhatTheDevicesQueueHolds) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Outcome o = Login(GoodReq(kind));
    ExpectAccepted(o);
    EXPECT_EQ(99u, Rsp(o).req_lim_delta);
    ASSERT_NE(nullptr, Qp(o));
    EXPECT_EQ(99u, Qp(o)->recvs.size());
  }
}

TEST_F(LoginResponseTest, AttributesApplyToLaterLogins) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "16", 2));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_MAX_RSP_SIZE, "40", 2));
  const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
  ExpectAccepted(o);
  EXPECT_EQ(16u, Rsp(o).req_lim_delta) << "at most srp_sq_size";
  EXPECT_EQ(40u, Rsp(o).max_ti_iu_len);
  EXPECT_EQ(16u, Qp(o)->recvs.size());
}

TEST_F(LoginResponseTest, ReservedBytesAreIgnored) {
  // Both SINGLE logins of one nexus: the second replaces the first.
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = GoodReq(kind);
    r.reserved_ff = true;
    const Outcome o = Login(r);
    ExpectAccepted(o);
    EXPECT_EQ(kind == SRPT_CM_IB ? kRspNoChan : kRspTerminated, Rsp(o).rsp_flags);
    EXPECT_EQ(8260u, Rsp(o).max_it_iu_len);
  }
}

TEST_F(LoginResponseTest, ImmediateDataAtOffset68IsGranted) {
  EXPECT_EQ(kRspImmedSupported, ImmedFlags(68, true));
}

TEST_F(LoginResponseTest, ImmediateDataOffsetBounds) {
  EXPECT_EQ(kRspImmedSupported, ImmedFlags(48, true)) << "right behind SRP_CMD";
  EXPECT_EQ(0, ImmedFlags(47, true)) << "inside the SRP_CMD header";
  EXPECT_EQ(0, ImmedFlags(0, true));
  EXPECT_EQ(0, ImmedFlags(8260, true)) << "offset = it_iu_len: no room";
  EXPECT_EQ(0, ImmedFlags(9000, true)) << "past the IU";
  EXPECT_EQ(0, ImmedFlags(0xffff, true));
  EXPECT_EQ(kRspImmedSupported, ImmedFlags(8259, true));
  EXPECT_EQ(0, ImmedFlags(68, false)) << "not requested";
  EXPECT_EQ(0, ImmedFlags(64, true, 64)) << "a 64-byte IU";
  EXPECT_EQ(kRspImmedSupported, ImmedFlags(63, true, 64));
}

TEST_F(LoginResponseTest, FirstChannelOfANexusSaysNoChan) {
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  EXPECT_EQ(kRspNoChan, Rsp(o).rsp_flags);
}

TEST_F(LoginResponseTest, SingleReloginTerminatesTheOlderChannel) {
  const Outcome old_ch = LiveChannel(SRPT_CM_IB);
  const Outcome fresh = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(fresh);
  EXPECT_EQ(kRspTerminated, Rsp(fresh).rsp_flags);
  // The older channel closes through its release work.
  EXPECT_EQ(0, old_ch.id->destroys()) << "not from inside the new login";
  EXPECT_EQ(1u, fake::queued_works());
  RunWorks();
  ExpectReleasedByChannel(old_ch);
  EXPECT_EQ(std::vector<int>{0}, old_ch.id->disconnects) << "a DREQ";
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "replaced by a SINGLE login"))
      << fake::log_dump();
  EXPECT_EQ(0, fresh.id->destroys());
  EXPECT_EQ(1u, fake::live_sessions());
}

TEST_F(LoginResponseTest, SingleReloginOverRdmaCmTerminatesAnIbCmChannel) {
  const Outcome old_ch = LiveChannel(SRPT_CM_IB);
  const Outcome fresh = Login(GoodReq(SRPT_CM_RDMA));
  ExpectAccepted(fresh);
  EXPECT_EQ(kRspTerminated, Rsp(fresh).rsp_flags);
  RunWorks();
  ExpectReleasedByChannel(old_ch);
}

TEST_F(LoginResponseTest, MultiReloginMaintainsTheOlderChannel) {
  const Outcome old_ch = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.flags = srpt::srp::kMultiChanMulti;
  const Outcome fresh = Login(r);
  ExpectAccepted(fresh);
  EXPECT_EQ(kRspMaintained, Rsp(fresh).rsp_flags);
  EXPECT_EQ(0u, RunWorks());
  EXPECT_EQ(0, old_ch.id->destroys());
  EXPECT_EQ(2u, fake::live_sessions());
}

TEST_F(LoginResponseTest, MultiWithImmediateSaysBoth) {
  (void)LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kMultiChanMulti | srpt::srp::kImmedRequested;
  r.imm_off = 68;
  const Outcome o = Login(r);
  ExpectAccepted(o);
  EXPECT_EQ(kRspMaintained | kRspImmedSupported, Rsp(o).rsp_flags);
}

TEST_F(LoginResponseTest, AnotherInitiatorIsAnotherNexus) {
  (void)LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.i_port_id = MakeId(0, 0x0002c903000e0001ull);
  fake::allow_initiator(KTpg(tpg_), "0002:c903:000e:0001");
  const Outcome o = Login(r);
  ExpectAccepted(o);
  EXPECT_EQ(kRspNoChan, Rsp(o).rsp_flags);
  EXPECT_EQ(0u, fake::queued_works());
}

TEST_F(LoginResponseTest, AClosingChannelIsNeitherTerminatedNorMaintained) {
  const Outcome old_ch = LiveChannel(SRPT_CM_IB);
  fake::cm_event(old_ch.id, SRPT_CM_EV_DISCONNECT);  // closing, release queued
  const Outcome fresh = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(fresh);
  EXPECT_EQ(kRspNoChan, Rsp(fresh).rsp_flags);
}

TEST_F(LoginResponseTest, TheLoginIsLogged) {
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kImmedRequested;
  r.imm_off = 68;
  ExpectAccepted(Login(r));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "login from 192.0.2.2")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "immediate data")) << fake::log_dump();
}

// A login that registers its channel while the channels file is being read
// (another thread, right after the reader took the time): the channel is
// listed 0 s old or not yet, never with the clock difference wrapped below
// zero (18446744071 s).
TEST_F(LoginResponseTest, AChannelLoggedInWhileTheChannelsFileIsReadIsNeverOlderThanZero) {
  int login = -1;
  Outcome o;
  srpt_k_seq seq;
  fake::after_next_now([&] {
    fake::advance_ns(2ull * 1000000000ull);
    login = fake::spawn_thread([&] { o = Login(GoodReq(SRPT_CM_IB)); });
  });
  srpt_core_show_channels(&seq);
  EXPECT_EQ(0u, fake::run_threads());
  ASSERT_TRUE(fake::thread_finished(login));
  ExpectAccepted(o);
  EXPECT_EQ(std::string::npos, seq.text.find(" 1844674407")) << seq.text;

  srpt_k_seq after;
  srpt_core_show_channels(&after);
  EXPECT_NE(std::string::npos,
            after.text.find(std::string(kInitiatorId0x) + " " + kInitiatorGuidName +
                            " ib_cm connecting mlx5_0/1 128 128 0 0 128 8260 256 no 0"))
      << after.text;
}

TEST_F(LoginResponseTest, TheChannelsFileListsLiveChannels) {
  (void)LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kMultiChanMulti | srpt::srp::kImmedRequested;
  r.imm_off = 68;
  r.it_iu_len = 4096;
  const Outcome rdma = Login(r);
  ExpectAccepted(rdma);
  fake::advance_ns(31ull * 1000000000ull);
  srpt_k_seq seq;
  srpt_core_show_channels(&seq);
  EXPECT_NE(std::string::npos,
            seq.text.find("# initiator_port_id session cm state port"))
      << seq.text;
  EXPECT_NE(std::string::npos,
            seq.text.find(std::string(kInitiatorId0x) + " " + kInitiatorGuidName +
                          " ib_cm live mlx5_0/1 128 128 0 0 128 8260 256 no 31"))
      << seq.text;
  EXPECT_NE(std::string::npos,
            seq.text.find(std::string(kInitiatorId0x) + " " + kInitiatorAddr +
                          " rdma_cm connecting mlx5_0/1 128 128 0 0 128 4096 256 yes 31"))
      << seq.text;
}
