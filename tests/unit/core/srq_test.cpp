// SPDX-License-Identifier: GPL-2.0
// SRQ mode (use_srq): the device's shared receive queue made and dropped by
// the attribute, channels that take their request IUs from it, and every
// IU buffer given back to it whatever happens to the channel.
#include <srpt/abi/fabric.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/channel.h>
#include <srpt/core/target.h>

#include <string>

#include "../harness/login_test.h"

namespace {

using srpt::Channel;
namespace srp = srpt::srp;

class SrqTest : public LoginTest {
 protected:
  static Channel& Chan(const Outcome& o) { return srpt::from_abi(o.id->context); }
  static Channel::Snapshot Snap(const Outcome& o) { return Chan(o).snapshot(); }

  int SetUseSrq(const char* v) {
    return srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_USE_SRQ, v, strlen(v));
  }
  uint32_t UseSrq() { return srpt_core_tpg_attr_show(tpg_, SRPT_ATTR_USE_SRQ); }
  srpt_k_srq* Srq() {
    const auto v = fake::srqs();
    return v.empty() ? nullptr : v.front();
  }
  // Buffers posted on the SRQ (the rest are held by channels).
  size_t SrqPosted() { return Srq() ? Srq()->recvs.size() : 0; }
  std::string Channels() {
    srpt_k_seq seq;
    srpt_core_show_channels(&seq);
    return seq.text;
  }
};

constexpr size_t kSrqSize = 4095;  // srpt_srq_size's default

// As in-tree: a login on the SRQ is granted the credits of one with its
// own ring, min(128, max_qp_wr); the SRQ's buffers are shared, not split.
TEST_F(SrqTest, ALoginOnTheSrqGetsTheSameCredits) {
  ASSERT_EQ(0, SetUseSrq("1"));
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = GoodReq(kind);
    r.flags = srp::kMultiChanMulti;
    const Outcome o = Login(r);
    ExpectAccepted(o);
    EXPECT_EQ(128u, Rsp(o).req_lim_delta);
    EXPECT_EQ(128u, Snap(o).req_lim);
  }
}

TEST_F(SrqTest, TheAttributeMakesAndDropsTheDevicesSrq) {
  EXPECT_EQ(0u, UseSrq());
  EXPECT_EQ(0u, fake::live_srqs());
  ASSERT_EQ(0, SetUseSrq("1"));
  EXPECT_EQ(1u, UseSrq());
  ASSERT_EQ(1u, fake::live_srqs());
  EXPECT_EQ(kSrqSize, SrqPosted()) << "every buffer posted at creation";
  EXPECT_EQ(8276u, Srq()->ring->size) << "srp_max_req_size bytes each";
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "shared receive queue of 4095 buffers"));
  srpt_k_srq* const first = Srq();
  ASSERT_EQ(0, SetUseSrq("1"));  // the value it has: nothing changes
  EXPECT_EQ(first, Srq());
  EXPECT_EQ(1u, fake::call_count(fake::Call::SrqCreate));
  EXPECT_EQ(-SRPT_EINVAL, SetUseSrq("2"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "use_srq=2 out of range"));
  EXPECT_EQ(1u, UseSrq());
  ASSERT_EQ(0, SetUseSrq("0"));
  EXPECT_EQ(0u, UseSrq());
  EXPECT_EQ(0u, fake::live_srqs()) << "no port uses it any more";
  EXPECT_EQ(0u, fake::live_rings());
}

TEST_F(SrqTest, AChannelOnTheSrqRepostsItsIusToTheSrq) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  ASSERT_NE(nullptr, Qp(o)->params.srq);
  EXPECT_EQ(Srq(), Qp(o)->params.srq);
  EXPECT_EQ(kSrqSize, Qp(o)->params.recv_depth)
      << "the CQ holds a completion for every SRQ buffer the initiator could take";
  EXPECT_TRUE(Qp(o)->recvs.empty());
  EXPECT_EQ(0u, fake::call_count(fake::Call::PostRecv)) << "no own receive queue";
  EXPECT_EQ(kCredits, Rsp(o).req_lim_delta);
  EXPECT_NE(std::string::npos, Channels().find(" srq\n")) << Channels();

  const uint32_t index = Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kSrqSize - 1, SrqPosted()) << "the command holds its IU";
  ASSERT_EQ(1u, fake::submissions().size());
  Answer(fake::submissions()[0].cmd);
  EXPECT_NE(0u, fake::find_last_call("srpt_k_srq_post_recv", Srq(), index));
  EXPECT_EQ(kSrqSize, SrqPosted());
  fake::complete_send(Qp(o));
  EXPECT_EQ(0u, Snap(o).busy_slots);
  EXPECT_EQ(kCredits, Snap(o).req_lim);
}

TEST_F(SrqTest, ImmediateDataOnlyAtTheSrqsAlignedOffset) {
  ASSERT_EQ(0, SetUseSrq("1"));
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srp::kMultiChanMulti | srp::kImmedRequested;
  r.imm_off = 68;
  const Outcome a = Login(r);
  ExpectAccepted(a);
  EXPECT_EQ(srp::kRspImmedSupported, Rsp(a).rsp_flags & srp::kRspImmedSupported);
  r.imm_off = 80;
  const Outcome b = Login(r);
  ExpectAccepted(b);
  EXPECT_EQ(0, Rsp(b).rsp_flags & srp::kRspImmedSupported)
      << "the shared buffers align one offset only";
}

TEST_F(SrqTest, AClosingChannelGivesEveryBufferBack) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  // Two IUs wait for the RTU (pending), then it comes and more arrive:
  // commands in the target core, one answered with its response in flight.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(2u, Snap(o).waiting);
  EXPECT_EQ(kSrqSize - 2, SrqPosted());
  Establish(o);
  for (int i = 0; i < 3; i++) Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_EQ(5u, fake::submissions().size());
  Answer(fake::submissions()[0].cmd);
  EXPECT_EQ(kSrqSize - 4, SrqPosted());
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  // Arrivals while closing go straight back.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kSrqSize - 4, SrqPosted());
  RunWorks();
  for (const fake::Submission& s : fake::submissions()) EXPECT_EQ(1, s.cmd->releases);
  ExpectReleasedByChannel(o);
  EXPECT_EQ(kSrqSize, SrqPosted()) << "every buffer back on the SRQ";
  EXPECT_EQ(1u, fake::live_srqs()) << "the device keeps it while use_srq is on";
}

TEST_F(SrqTest, IusWaitingForTheRtuGoBackWhenTheChannelCloses) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
  ExpectAccepted(o);
  for (int i = 0; i < 3; i++) Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(3u, Snap(o).waiting);
  fake::cm_event(o.id, SRPT_CM_EV_REJECTED);
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::submissions().empty());
  EXPECT_EQ(kSrqSize, SrqPosted()) << "the release work gave the waiting IUs back";
}

// SRP_I_LOGOUT takes no slot and gets no response; its
// buffer must still go back to the SRQ, or every logout leaks one and the
// device's SRQ runs dry for every channel on it.
TEST_F(SrqTest, ALogoutGivesItsBufferBack) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, SimpleIu(srp::kILogout, 9));
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_EQ(kSrqSize, SrqPosted()) << "the logout's IU went back to the SRQ";
}

// A receive completion of the SRQ naming a closing channel's QP, delivered
// late: the device took the buffer for the QP before it went to the error
// state and completes it while the release work runs (on
// 6.1 rxe raises no Last WQE Reached, so the teardown drains only the
// send queue). Wherever it lands before srpt_k_qp_destroy() returns, the
// channel is alive (the release work holds its reference) and still holds
// the SRQ: the buffer goes back, and nothing is dispatched. The SRQ's
// postings are counted: exactly one repost for the one buffer taken.
class SrqLateRecvTest : public SrqTest {
 protected:
  size_t SrqReposts() { return fake::count_calls("srpt_k_srq_post_recv", Srq()); }
  void ExpectNoViolation() {
    std::string all;
    for (const std::string& v : fake::take_violations()) all += "  " + v + "\n";
    EXPECT_TRUE(all.empty()) << "the fake saw:\n" << all;
  }
};

TEST_F(SrqLateRecvTest, WhileTheReleaseWorkDrainsTheSession) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_qp* const qp = Qp(o);
  fake::take_srq_recv(qp, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kSrqSize - 1, SrqPosted());
  fake::on_next_call("srpt_k_session_drain", [qp] { fake::complete_late_recv(qp, true); });
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  ExpectNoViolation();
  ExpectReleasedByChannel(o);
  EXPECT_NE(0u, fake::find_call("late_recv")) << fake::trace_dump();
  EXPECT_TRUE(fake::submissions().empty()) << "a closing channel dispatches nothing";
  EXPECT_EQ(kSrqSize, SrqPosted()) << fake::trace_dump();
  EXPECT_EQ(1u, SrqReposts());
}

TEST_F(SrqLateRecvTest, AfterTheSendQueuesDrainRequest) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  // A response in flight: the drain flushes it before the late receive.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_EQ(1u, fake::submissions().size());
  Answer(fake::submissions()[0].cmd);
  ASSERT_EQ(1u, Posted(o).size());
  fake::take_srq_recv(Qp(o), EncodeSrpCmd(SrpCmd{}));
  fake::take_srq_recv(Qp(o), SimpleIu(srp::kILogout, 7));
  EXPECT_EQ(kSrqSize - 2, SrqPosted());
  const size_t reposts = SrqReposts();
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  ExpectNoViolation();
  ExpectReleasedByChannel(o);
  const uint64_t flushed = fake::find_call("flush_send");
  const uint64_t late = fake::find_call("late_recv");
  ASSERT_NE(0u, late) << fake::trace_dump();
  EXPECT_LT(flushed, late) << fake::trace_dump();
  EXPECT_LT(late, fake::find_last_call("srpt_k_ring_destroy")) << fake::trace_dump();
  EXPECT_EQ(1u, fake::submissions().size()) << "nothing more was dispatched";
  EXPECT_EQ(kSrqSize, SrqPosted()) << fake::trace_dump();
  EXPECT_EQ(reposts + 2, SrqReposts());
}

TEST_F(SrqLateRecvTest, FlushedWhenTheLastChannelGoesAtASwitchOff) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  srpt_k_qp* const qp = Qp(o);
  fake::take_srq_recv(qp, EncodeSrpCmd(SrpCmd{}));
  fake::on_next_call("srpt_k_qp_destroy", [qp] { fake::complete_late_recv(qp, false); });
  srpt_k_srq* const srq = Srq();
  ASSERT_EQ(0, SetUseSrq("0"));
  // srpt_k_srq_destroy() reports a buffer never given back (a violation).
  ExpectNoViolation();
  ExpectReleasedByChannel(o);
  EXPECT_NE(0u, fake::find_call("late_recv_flushed"));
  EXPECT_EQ(1u, fake::count_calls("srpt_k_srq_post_recv", srq));
  EXPECT_EQ(0u, fake::live_srqs());
}

// srpt_srq_size at its minimum: more logout cycles than the SRQ has buffers.
class SmallSrqTest : public SrqTest {
 protected:
  static constexpr size_t kSmall = 4;
  srpt_params SetUpParams() const override {
    srpt_params p = DefaultParams();
    p.srpt_srq_size = kSmall;
    return p;
  }
};

// A device whose largest CQ is smaller than the default SRQ (4095 buffers):
// a channel on the SRQ needs a CQ entry for each.
class SrqLargerThanTheLargestCqTest : public SrqTest {
 protected:
  void TuneDevice(FakeDevice& dev) override { dev.SetMaxCqe(4000); }
};

// The login on the SRQ is refused with a log line that says what to change,
// and makes no QP: the shim's CQ would be one the RDMA core's pool can
// never find (it made CQs of the largest size until memory ran out). A
// channel with its own ring fits and logs in.
TEST_F(SrqLargerThanTheLargestCqTest, ALoginOnTheSrqIsRefused) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const size_t qps = fake::call_count(fake::Call::QpCreate);
  ExpectRejected(Login(GoodReq(SRPT_CM_IB)), srp::kRejInsufficientResources);
  EXPECT_EQ(qps, fake::call_count(fake::Call::QpCreate)) << "no QP was made";
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "completion queue (more entries than the device's largest CQ; "
                           "lower srpt_srq_size) failed: -22"))
      << fake::log_dump();
  ASSERT_EQ(0, SetUseSrq("0"));
  const Outcome own = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(nullptr, Qp(own)->params.srq);
}

TEST_F(SmallSrqTest, MoreLogoutsThanSrqBuffersLeaveTheSrqFull) {
  ASSERT_EQ(0, SetUseSrq("1"));
  ASSERT_EQ(kSmall, SrqPosted());
  for (size_t i = 0; i < 4 * kSmall; i++) {
    const Outcome o = LiveChannel(i % 2 ? SRPT_CM_RDMA : SRPT_CM_IB);
    Receive(o, SimpleIu(srp::kILogout, i));
    RunWorks();
    ExpectReleasedByChannel(o);
    ASSERT_EQ(kSmall, SrqPosted()) << "cycle " << i;
  }
  // The next channel's command is still served from the SRQ.
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_EQ(1u, fake::submissions().size());
  Answer(fake::submissions()[0].cmd);
  EXPECT_EQ(kSmall, SrqPosted());
}

// The channels file read while an SRQ channel's release work runs on
// another CPU: the channel is listed on the SRQ until it is unlisted. (The
// release work drops its SRQ reference before it takes the target's lock to
// unlist the channel; the file read that reference without its lock, a
// data race, and said "own".)
TEST_F(SrqTest, AReleasingChannelIsListedOnTheSrqUntilUnlisted) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, SimpleIu(srp::kILogout, 0x10));
  ASSERT_EQ(1u, fake::queued_works()) << "the release work";
  int release = -1;
  srpt_k_seq seq;
  // Right after the reader took the time (under the target's lock): the
  // release work runs until it waits for that lock to unlist the channel.
  fake::after_next_now([&] {
    release = fake::spawn_thread([] { fake::run_one_work_on(true); });
  });
  srpt_core_show_channels(&seq);
  ASSERT_NE(-1, release);
  EXPECT_NE(std::string::npos, seq.text.find(" ib_cm released mlx5_0/1 ")) << seq.text;
  EXPECT_NE(std::string::npos, seq.text.find(" srq\n")) << seq.text;
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::thread_finished(release));
  RunWorks();
  ExpectReleasedByChannel(o);
}

TEST_F(SrqTest, IusBeyondTheCreditsCloseTheChannel) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  // Before the RTU nothing is dispatched: the credits fill the pending
  // table, and an SRQ delivers one more too.
  for (uint32_t i = 0; i < kCredits; i++) Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kCredits, Snap(o).waiting);
  EXPECT_EQ(Channel::State::Connecting, Snap(o).state);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "request IU beyond its 128 credits"));
  EXPECT_EQ(kSrqSize - kCredits, SrqPosted()) << "the excess IU went back at once";
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "more request IUs than credits"));
  EXPECT_EQ(kSrqSize, SrqPosted());
}

// A live channel holds at most its credits in SRQ buffers, whether they wait for a slot or are held by its commands.
TEST_F(SrqTest, IusBeyondTheCreditsCloseALiveChannelWhoseCommandsHoldThem) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  for (uint32_t i = 0; i < kCredits; i++) Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kCredits, fake::submissions().size());
  EXPECT_EQ(kSrqSize - kCredits, SrqPosted());
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(Channel::State::Closing, Snap(o).state);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "request IU beyond its 128 credits"));
  EXPECT_EQ(kSrqSize - kCredits, SrqPosted()) << "the excess IU went back at once";
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_EQ(kSrqSize, SrqPosted());
}

TEST_F(SrqTest, SwitchingLogsOutThePortsChannelsAndTheyComeBackOnTheNewQueue) {
  const Outcome own = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(nullptr, Qp(own)->params.srq);
  ASSERT_EQ(0, SetUseSrq("1"));
  // Released before the write returned.
  ExpectReleasedByChannel(own);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "closing: use_srq changed"));
  const Outcome on = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(Srq(), Qp(on)->params.srq);
  Receive(on, EncodeSrpCmd(SrpCmd{}));  // a command in flight at the switch
  EXPECT_EQ(kSrqSize - 1, SrqPosted());
  ASSERT_EQ(0, SetUseSrq("0"));
  ExpectReleasedByChannel(on);
  EXPECT_EQ(0u, fake::live_srqs()) << "destroyed once its last channel was gone";
  const Outcome back = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(nullptr, Qp(back)->params.srq);
  EXPECT_EQ(kCredits, Qp(back)->recvs.size());
}

TEST_F(SrqTest, AFailedSrqCreationChangesNothing) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::fail_call(fake::Call::SrqCreate, -SRPT_ENOMEM);
  EXPECT_EQ(-SRPT_ENOMEM, SetUseSrq("1"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "creating the shared receive queue of"));
  EXPECT_EQ(0u, UseSrq());
  EXPECT_EQ(0u, fake::live_srqs());
  EXPECT_EQ(Channel::State::Live, Snap(o).state) << "no channel was logged out";
  // Every allocation of the SRQ failing in turn leaves nothing behind.
  for (size_t n = 0; n < 3; n++) {
    fake::fail_nth_allocation(n);
    const int ret = SetUseSrq("1");
    fake::disarm_allocation_failures();
    if (ret == 0) break;
    EXPECT_EQ(-SRPT_ENOMEM, ret);
    EXPECT_EQ(0u, UseSrq());
    EXPECT_EQ(0u, fake::live_srqs());
  }
  // And later it works.
  ASSERT_EQ(0, SetUseSrq("1"));
  ExpectReleasedByChannel(o);
  EXPECT_EQ(1u, fake::live_srqs());
}

TEST_F(SrqTest, DeviceRemovalDestroysTheSrqAfterItsChannels) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  RemoveDevice(cdev_);
  cdev_ = nullptr;
  ExpectReleasedByChannel(o);
  EXPECT_EQ(0u, fake::live_srqs());
  const uint64_t qp_gone = fake::find_last_call("srpt_k_qp_destroy");
  const uint64_t srq_gone = fake::find_last_call("srpt_k_srq_destroy");
  EXPECT_NE(0u, srq_gone);
  EXPECT_LT(qp_gone, srq_gone) << fake::trace_dump();
}

// SRQ events: an SRQ error marks the SRQ failed from the
// driver's (atomic) event context; the device's event work installs a new
// SRQ and closes the channels on the failed one, which then goes.
TEST_F(SrqTest, AnSrqErrorClosesItsChannelsAndANewSrqServesTheNextLogin) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  const int first = Srq()->serial;
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "mlx5_0: shared receive queue failed (SRQ error)"))
      << fake::log_dump();
  EXPECT_EQ(Channel::State::Live, Snap(o).state) << "the event only queues work";
  EXPECT_EQ(1u, fake::queued_works());
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "closing: shared receive queue failed"))
      << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE,
                           "mlx5_0: a new shared receive queue of 4095 buffers replaces the failed one"))
      << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "mlx5_0: failed shared receive queue released"));
  ASSERT_EQ(1u, fake::live_srqs()) << "the failed one is destroyed";
  EXPECT_NE(first, Srq()->serial);
  EXPECT_EQ(kSrqSize, SrqPosted());
  EXPECT_EQ(1u, UseSrq());
  // The initiator logs in again, on the new SRQ.
  const Outcome again = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(Srq(), Qp(again)->params.srq);
}

TEST_F(SrqTest, ASecondSrqErrorIsReportedOnce) {
  ASSERT_EQ(0, SetUseSrq("1"));
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  RunWorks();
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_ERR, "shared receive queue failed"));
  EXPECT_EQ(2u, fake::call_count(fake::Call::SrqCreate)) << "one replacement";
}

TEST_F(SrqTest, WithoutANewSrqThePortGoesOnWithoutSrq) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  fake::fail_call(fake::Call::SrqCreate, -SRPT_ENOMEM);
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  RunWorks();
  ExpectReleasedByChannel(o);
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR,
                           "mlx5_0 port 1: no new shared receive queue (error -12); use_srq=0"))
      << fake::log_dump();
  EXPECT_EQ(0u, UseSrq());
  EXPECT_EQ(0u, fake::live_srqs());
  const Outcome again = LiveChannel(SRPT_CM_RDMA);
  EXPECT_EQ(nullptr, Qp(again)->params.srq) << "a receive ring of its own";
}

TEST_F(SrqTest, AChannelWithoutTheSrqIsNotClosedByItsError) {
  // Port 2 without SRQ, port 1 with it: only port 1's channel goes.
  srpt_core_tport* tport2 = nullptr;
  srpt_core_tpg* tpg2 = nullptr;
  ServeTpg(kPort2Guid, &tport2, &tpg2);
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome on_srq = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_IB);
  const Outcome plain = LoginRaw(SRPT_CM_IB, EncodeLoginReq(r), 2);
  ExpectAccepted(plain);
  Establish(plain);
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  RunWorks();
  ExpectReleasedByChannel(on_srq);
  EXPECT_EQ(Channel::State::Live, Snap(plain).state);
}

TEST_F(SrqTest, ALimitEventIsLoggedAndChangesNothing) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_LIMIT_REACHED);
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "mlx5_0: shared receive queue limit reached"));
  EXPECT_EQ(0u, fake::queued_works());
  EXPECT_EQ(Channel::State::Live, Snap(o).state);
}

TEST_F(SrqTest, AnSrqErrorDuringDeviceRemovalReplacesNothing) {
  ASSERT_EQ(0, SetUseSrq("1"));
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::srq_event(Srq(), SRPT_SRQ_EVENT_ERR);
  RemoveDevice(cdev_);  // runs the queued work: the device is unlisted
  cdev_ = nullptr;
  ExpectReleasedByChannel(o);
  EXPECT_EQ(1u, fake::call_count(fake::Call::SrqCreate)) << "no replacement";
  EXPECT_EQ(0u, fake::live_srqs());
  EXPECT_EQ(0u, fake::live_works());
}

}  // namespace
