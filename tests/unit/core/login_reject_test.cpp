// SPDX-License-Identifier: GPL-2.0
// The login handler's refusals (the table at the top of src/core/login.cpp),
// row by row, through srpt_core_login() with the fake CM. Every refusal must return non-zero and leave the cm_id to the CM
// core (the harness destroys it as the caller; LoginTest's TearDown checks
// that nobody else did), and every SRP-level refusal must carry an
// SRP_LOGIN_REJ with its reason and the request's tag.
#include <srpt/abi/fabric.h>

#include "../harness/login_test.h"

namespace {

using srpt::srp::kRejChannelLimitReached;
using srpt::srp::kRejInsufficientResources;
using srpt::srp::kRejIuTooLarge;
using srpt::srp::kRejUnableToAssociate;
using srpt::srp::kRejUnableToEstablish;
using srpt::srp::kRejUnsupportedDescriptorFmt;

class LoginRejectTest : public LoginTest {
 protected:
  // Both CMs, each with its own tag, so an echo of the wrong tag shows.
  template <class Mutate>
  void ExpectRejectedOnBothCms(uint32_t reason, Mutate mutate) {
    for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
      SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
      LoginReq r = GoodReq(kind);
      r.tag = 0x1000 + logins_.size();
      mutate(r);
      const Outcome o = Login(r);
      ExpectRejected(o, reason, r.tag);
    }
  }
  void ExpectAcceptedOnBothCms(void (*mutate)(LoginReq&)) {
    for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
      SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
      LoginReq r = GoodReq(kind);
      mutate(r);
      ExpectAccepted(Login(r));
    }
  }
};

}  // namespace

TEST_F(LoginRejectTest, TheStandardRequestIsAccepted) {
  ExpectAcceptedOnBothCms([](LoginReq&) {});
}

// --- private data too short: a CM reject without SRP_LOGIN_REJ ------------------

TEST_F(LoginRejectTest, RdmaCmPrivateDataShorterThan56IsAPlainReject) {
  for (size_t len : {55, 32, 1}) {
    SCOPED_TRACE(len);
    LoginReq r = GoodReq(SRPT_CM_RDMA);
    r.priv_len = len;
    ExpectPlainReject(Login(r));
  }
  LoginReq exact = GoodReq(SRPT_CM_RDMA);
  exact.priv_len = 56;
  ExpectAccepted(Login(exact));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "55 bytes of private data"))
      << fake::log_dump();
}

TEST_F(LoginRejectTest, IbCmPrivateDataShorterThan64IsAPlainReject) {
  for (size_t len : {63, 56, 1}) {
    SCOPED_TRACE(len);
    LoginReq r = GoodReq(SRPT_CM_IB);
    r.priv_len = len;
    ExpectPlainReject(Login(r));
  }
  LoginReq exact = GoodReq(SRPT_CM_IB);
  exact.priv_len = 64;
  ExpectAccepted(Login(exact));
}

TEST_F(LoginRejectTest, NoPrivateDataAtAllIsAPlainReject) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    fake::CmId* id = fake::new_cm_id(kind);
    logins_.push_back(id);
    srpt_login_event ev{};
    ev.kdev = reinterpret_cast<srpt_k_device*>(&ev);  // never looked at
    ev.port_num = 1;
    ev.priv = nullptr;
    ev.priv_len = 0;
    ev.src_addr = nullptr;
    EXPECT_NE(0, fake::cm_login(id, ev));
    ExpectPlainReject(Outcome{id->login_ret, id});
  }
}

// --- unknown device or port: a CM reject without SRP_LOGIN_REJ -----------------

TEST_F(LoginRejectTest, UnknownDeviceIsAPlainReject) {
  FakeDevice other("mlx5_9", 0x1111222233334444ull);
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = GoodReq(kind);
    r.kdev = other.kdev();
    ExpectPlainReject(Login(r));
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "unknown device or port"));
}

TEST_F(LoginRejectTest, UnknownPortIsAPlainReject) {
  for (uint32_t port : {0u, 3u, 255u}) {
    LoginReq r = GoodReq(SRPT_CM_IB);
    r.port_num = port;
    ExpectPlainReject(Login(r));
  }
}

TEST_F(LoginRejectTest, PortOfARemovedDeviceIsAPlainReject) {
  // The target port stays in configfs after the device goes; the device's
  // kdev is no longer known to the core.
  FakeDevice again = TwoPortDevice();
  RemoveDevice(cdev_);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.kdev = again.kdev();
  ExpectPlainReject(Login(r));
}

// --- SRP-level refusals -------------------------------------------------------

TEST_F(LoginRejectTest, OpcodeOtherThanLoginReqIs00010000) {
  for (uint8_t op : {0x01, 0x02, 0xc0, 0xff}) {
    SCOPED_TRACE(static_cast<int>(op));
    ExpectRejectedOnBothCms(kRejUnableToEstablish, [op](LoginReq& r) { r.opcode = op; });
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "rejected: 0x00010000")) << fake::log_dump();
}

TEST_F(LoginRejectTest, ItIuLenBelow64Is00010002) {
  for (uint32_t len : {63u, 0u, 1u}) {
    SCOPED_TRACE(len);
    ExpectRejectedOnBothCms(kRejIuTooLarge, [len](LoginReq& r) { r.it_iu_len = len; });
  }
  ExpectAcceptedOnBothCms([](LoginReq& r) { r.it_iu_len = 64; });
}

TEST_F(LoginRejectTest, ItIuLenAboveSrpMaxReqSizeIs00010002) {
  const uint32_t max = static_cast<uint32_t>(DefaultParams().srp_max_req_size);
  for (uint32_t len : {max + 1, 0xffffffffu, 0x80000000u}) {
    SCOPED_TRACE(len);
    ExpectRejectedOnBothCms(kRejIuTooLarge, [len](LoginReq& r) { r.it_iu_len = len; });
  }
  ExpectAcceptedOnBothCms([](LoginReq& r) { r.it_iu_len = 8276; });
}

TEST_F(LoginRejectTest, NeitherDirectNorIndirectIs00010004) {
  for (uint16_t fmt : {0x0000, 0x0001, 0x0008, 0xfff9}) {
    SCOPED_TRACE(fmt);
    ExpectRejectedOnBothCms(kRejUnsupportedDescriptorFmt,
                            [fmt](LoginReq& r) { r.buf_fmt = fmt; });
  }
  ExpectAcceptedOnBothCms([](LoginReq& r) { r.buf_fmt = 0x0002; });  // direct only
  ExpectAcceptedOnBothCms([](LoginReq& r) { r.buf_fmt = 0x0004; });  // indirect only
}

TEST_F(LoginRejectTest, TargetPortIdNotOursIs00010003) {
  const uint64_t g = service_guid_;
  ExpectRejectedOnBothCms(kRejUnableToAssociate,
                          [g](LoginReq& r) { r.t_port_id = MakeId(g + 1, g); });
  ExpectRejectedOnBothCms(kRejUnableToAssociate,
                          [g](LoginReq& r) { r.t_port_id = MakeId(g, g ^ 0x100); });
  ExpectRejectedOnBothCms(kRejUnableToAssociate,
                          [](LoginReq& r) { r.t_port_id = MakeId(0, 0); });
}

TEST_F(LoginRejectTest, TheChecksRunInTheTableOrder) {
  // Everything wrong at once: the first row wins, and so on down the table.
  auto all_wrong = [this](srpt_cm_kind kind) {
    LoginReq r = GoodReq(kind);
    r.opcode = 0x7f;
    r.it_iu_len = 1;
    r.buf_fmt = 0;
    r.t_port_id = MakeId(1, 2);
    return r;
  };
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = all_wrong(kind);
    ExpectRejected(Login(r), kRejUnableToEstablish);
    r.opcode = 0;
    ExpectRejected(Login(r), kRejIuTooLarge);
    r.it_iu_len = 64;
    ExpectRejected(Login(r), kRejUnsupportedDescriptorFmt);
    r.buf_fmt = 2;
    ExpectRejected(Login(r), kRejUnableToAssociate);
    // A bad request on a port without an enabled TPG is still judged by
    // the request first.
    r.port_num = 2;
    ExpectRejected(Login(r), kRejUnableToAssociate);
  }
}

TEST_F(LoginRejectTest, PortWithoutTargetPortIs00010001) {
  ExpectRejectedOnBothCms(kRejInsufficientResources, [](LoginReq& r) { r.port_num = 2; });
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "no enabled TPG")) << fake::log_dump();
}

TEST_F(LoginRejectTest, TargetPortWithoutTpgIs00010001) {
  ASSERT_EQ(0, MakeTport(kPort2Gid));
  ExpectRejectedOnBothCms(kRejInsufficientResources, [](LoginReq& r) { r.port_num = 2; });
}

TEST_F(LoginRejectTest, DisabledTpgIs00010001) {
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  ExpectRejectedOnBothCms(kRejInsufficientResources, [](LoginReq&) {});
  // Enabled again, it serves again.
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 1));
  ExpectAcceptedOnBothCms([](LoginReq&) {});
}

TEST_F(LoginRejectTest, NoAclIs00010006) {
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  fake::disallow_initiator(KTpg(tpg_), kInitiatorAddr);
  ExpectRejectedOnBothCms(kRejChannelLimitReached, [](LoginReq&) {});
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "no ACL admits this initiator"))
      << fake::log_dump();
  EXPECT_EQ(0u, fake::live_sessions());
}

// The ACL is asked before the channel is built, so a
// login that no ACL admits costs no allocation, ring, QP or target-core
// session: an unauthenticated initiator cannot make the target build and
// tear down a channel per REQ.
TEST_F(LoginRejectTest, NoAclIsRefusedBeforeAnyChannelIsBuilt) {
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  fake::disallow_initiator(KTpg(tpg_), kInitiatorAddr);
  const size_t allocations = fake::sleeping_allocations() + fake::atomic_allocations();
  ExpectRejectedOnBothCms(kRejChannelLimitReached, [](LoginReq&) {});
  EXPECT_EQ(2u, fake::count_log_lines(SRPT_LOG_WARNING, "no ACL admits this initiator"))
      << fake::log_dump();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_qp_create")) << fake::trace_dump();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_ring_create"));
  EXPECT_EQ(allocations, fake::sleeping_allocations() + fake::atomic_allocations())
      << "the refused logins allocated";
  EXPECT_TRUE(fake::session_attempts().empty()) << "nothing to set up in the target core";
}

TEST_F(LoginRejectTest, AnotherInitiatorWithoutAclIs00010006) {
  ExpectRejectedOnBothCms(kRejChannelLimitReached, [](LoginReq& r) {
    r.i_port_id = MakeId(0, 0x0002c903000e0001ull);
    r.initiator_gid = MakeId(0xfe80000000000000ull, 0x0002c903000e0001ull);
    r.src_addr = "192.0.2.99";
  });
}

TEST_F(LoginRejectTest, RefusalsLogTheInitiatorReasonAndCause) {
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.buf_fmt = 0;
  ExpectRejected(Login(r), kRejUnsupportedDescriptorFmt);
  ASSERT_EQ(1u, fake::count_log_lines(SRPT_LOG_WARNING, "rejected")) << fake::log_dump();
  const fake::LogLine& line = fake::log_lines().back();
  EXPECT_NE(std::string::npos, line.text.find(kInitiatorAddr)) << line.text;
  EXPECT_NE(std::string::npos, line.text.find(kInitiatorId0x)) << line.text;
  EXPECT_NE(std::string::npos, line.text.find("0x00010004 unsupported descriptor format"))
      << line.text;
}

TEST_F(LoginRejectTest, AFailingRejectIsLoggedAndStillLeavesTheIdToTheCaller) {
  fake::fail_call(fake::Call::CmReject, -SRPT_EIO);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.opcode = 1;
  const Outcome o = Login(r);
  EXPECT_NE(0, o.ret);
  EXPECT_TRUE(o.id->rejects.empty());  // the fake recorded none: it failed
  EXPECT_EQ(1, o.id->caller_destroys);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "sending the reject failed: -5"))
      << fake::log_dump();
}

// --- MULTI: channels per I_T nexus ---------------------------------------------

namespace {

class NexusLimitTest : public LoginTest {
 protected:
  void SetUp() override {
    LoginTest::SetUp();
    // Small channels; the limit is per port and initiator port id.
    ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
  }
};

}  // namespace

TEST_F(NexusLimitTest, MultiLoginsBeyondMaxChannelsPerNexusAre00010006) {
  const uint32_t limit = static_cast<uint32_t>(DefaultParams().max_channels_per_nexus);
  for (uint32_t i = 0; i < limit; i++) {
    LoginReq r = GoodReq(i % 2 ? SRPT_CM_RDMA : SRPT_CM_IB);
    r.flags = srpt::srp::kMultiChanMulti;
    const Outcome o = Login(r);
    ASSERT_EQ(0, o.ret) << "login " << i << "\n" << fake::log_dump();
  }
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = GoodReq(kind);
    r.flags = srpt::srp::kMultiChanMulti;
    r.tag = 0x77;
    ExpectRejected(Login(r), kRejChannelLimitReached, 0x77);
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "max_channels_per_nexus"));
  // Another initiator is a different nexus.
  LoginReq other = GoodReq(SRPT_CM_IB);
  other.flags = srpt::srp::kMultiChanMulti;
  other.i_port_id = MakeId(0, 0x0002c903000e0002ull);
  fake::allow_initiator(KTpg(tpg_), "0002:c903:000e:0002");
  ExpectAccepted(Login(other));
  // A SINGLE login is never refused by the limit: it replaces them all.
  const Outcome single = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(single);
  EXPECT_EQ(srpt::srp::kRspTerminated, Rsp(single).rsp_flags);
  RunWorks();
  LoginReq multi = GoodReq(SRPT_CM_IB);
  multi.flags = srpt::srp::kMultiChanMulti;
  ExpectAccepted(Login(multi));
}

TEST_F(NexusLimitTest, ClosingChannelsDoNotCount) {
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.flags = srpt::srp::kMultiChanMulti;
  const uint32_t limit = static_cast<uint32_t>(DefaultParams().max_channels_per_nexus);
  std::vector<Outcome> chans;
  for (uint32_t i = 0; i < limit; i++) chans.push_back(Login(r));
  ExpectRejected(Login(r), kRejChannelLimitReached);
  // One disconnects; its release has not run yet, but it no longer counts.
  fake::cm_event(chans[0].id, SRPT_CM_EV_DISCONNECT);
  ExpectAccepted(Login(r));
}

// The initiator port id is the initiator's to choose, so
// the nexus limit alone does not bound one admitted host. Channels logged in
// under one session name (one ACL) are bounded by the same limit, SINGLE
// logins of new nexuses included.
TEST_F(NexusLimitTest, LoginsBeyondTheLimitUnderOneSessionNameAre00010006) {
  const uint32_t limit = static_cast<uint32_t>(DefaultParams().max_channels_per_nexus);
  for (uint32_t i = 0; i < limit; i++) {
    LoginReq r = GoodReq(SRPT_CM_IB);
    r.flags = i % 2 ? srpt::srp::kMultiChanMulti : srpt::srp::kMultiChanSingle;
    r.i_port_id = MakeId(0x100 + i, kInitiatorGuid);  // a new nexus each time
    ASSERT_EQ(0, Login(r).ret) << "login " << i << "\n" << fake::log_dump();
  }
  for (uint8_t flags : {srpt::srp::kMultiChanMulti, srpt::srp::kMultiChanSingle}) {
    LoginReq r = GoodReq(SRPT_CM_IB);
    r.flags = flags;
    r.i_port_id = MakeId(0x999, kInitiatorGuid);
    r.tag = 0x78;
    ExpectRejected(Login(r), kRejChannelLimitReached, 0x78);
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "under this session name"))
      << fake::log_dump();
  // A SINGLE login of a nexus that has channels replaces them: accepted.
  LoginReq again = GoodReq(SRPT_CM_IB);
  again.i_port_id = MakeId(0x100, kInitiatorGuid);
  const Outcome single = Login(again);
  ExpectAccepted(single);
  EXPECT_EQ(srpt::srp::kRspTerminated, Rsp(single).rsp_flags);
}

// Warnings an initiator can trigger at will are rate
// limited per initiator. A flood of refused logins from one initiator is cut
// down, but does not hide the first warning of another one; the flood's
// count is reported once its initiator logs again in a later interval.
TEST_F(LoginRejectTest, OneInitiatorsFloodDoesNotHideAnothersWarning) {
  constexpr int kFlood = 40;
  for (int i = 0; i < kFlood; i++) {
    LoginReq r = GoodReq(SRPT_CM_RDMA);
    r.buf_fmt = 0;
    ExpectRejected(Login(r), kRejUnsupportedDescriptorFmt);
  }
  const std::string x = std::string("login from ") + kInitiatorAddr + " ";
  const size_t x_lines = fake::count_log_lines(SRPT_LOG_WARNING, x);
  EXPECT_LE(1u, x_lines);
  EXPECT_GT(static_cast<size_t>(kFlood), x_lines) << "the flood is cut down";

  LoginReq y = GoodReq(SRPT_CM_RDMA);
  y.buf_fmt = 0;
  y.src_addr = "192.0.2.77";
  y.i_port_id = MakeId(0, 0x0002c903000e0077ull);
  ExpectRejected(Login(y), kRejUnsupportedDescriptorFmt);
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_WARNING, "login from 192.0.2.77 "))
      << "another initiator's first warning\n" << fake::log_dump();

  // The next interval: X's next warning comes with the count of those cut.
  fake::advance_ns(60ull * 1000000000ull);
  LoginReq again = GoodReq(SRPT_CM_RDMA);
  again.buf_fmt = 0;
  ExpectRejected(Login(again), kRejUnsupportedDescriptorFmt);
  EXPECT_EQ(x_lines + 1, fake::count_log_lines(SRPT_LOG_WARNING, x)) << fake::log_dump();
  const std::string cut = std::to_string(kFlood - x_lines) + " messages suppressed";
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_WARNING, cut)) << fake::log_dump();
}
