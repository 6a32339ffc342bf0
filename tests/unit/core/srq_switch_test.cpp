// SPDX-License-Identifier: GPL-2.0
// use_srq is per RDMA port (configfs), the SRQ per device: two switches on
// two ports of one device at the same time.
//
// Each port's switch holds only its own port's login lock, so nothing
// serialises the two but what the switch itself takes. Two kernel threads
// are modelled with the fake's spawned thread (thread.h): the second
// port's write starts at the point where the first one is busy (making the
// SRQ, or waiting for its channel's release), runs until it finishes or
// blocks, and is resumed by run_threads(). With one lock too many held the
// fake's lock checker reports a deadlock; with one too few the SRQ is made
// twice.
#include <cstring>
#include <string>

#include <srpt/abi/fabric.h>

#include "../harness/login_test.h"

namespace {

constexpr size_t kSrqSize = 4095;  // srpt_srq_size's default

class SrqSwitchTest : public LoginTest {
 protected:
  void SetUp() override {
    LoginTest::SetUp();
    srpt_core_tport* t = nullptr;
    ServeTpg(kPort2Guid, &t, &tpg2_);
  }

  static int SetUseSrq(srpt_core_tpg* tpg, const char* v) {
    return srpt_core_tpg_attr_store(tpg, SRPT_ATTR_USE_SRQ, v, strlen(v));
  }
  Outcome LiveOn(srpt_cm_kind kind, uint32_t port) {
    LoginReq r = GoodReq(kind);
    r.port_num = port;
    const Outcome o = Login(r);
    ExpectAccepted(o);
    Establish(o);
    return o;
  }
  srpt_k_srq* Srq() {
    const auto v = fake::srqs();
    return v.empty() ? nullptr : v.front();
  }
  size_t SrqPosted() { return Srq() ? Srq()->recvs.size() : 0; }

  // Runs port 2's write as another kernel thread at the entry of the next
  // `call`; its return value lands in write2_.
  void SwitchPort2AtNextCall(const std::string& call, const char* v) {
    fake::on_next_call(call, [this, v] {
      thread2_ = fake::spawn_thread([this, v] { write2_ = SetUseSrq(tpg2_, v); });
    });
  }

  void ExpectNoViolation() {
    std::string all;
    for (const std::string& v : fake::take_violations()) all += "  " + v + "\n";
    EXPECT_TRUE(all.empty()) << "the fake saw:\n" << all;
  }

  // Both writes returned, nothing blocked.
  void ExpectBothDone(int write1) {
    EXPECT_EQ(0, write1);
    EXPECT_EQ(0u, fake::run_threads()) << "a switch never finished:\n"
                                       << fake::trace_dump();
    ASSERT_NE(-1, thread2_) << "the hook never ran:\n" << fake::trace_dump();
    EXPECT_TRUE(fake::thread_finished(thread2_));
    EXPECT_EQ(0, write2_);
  }

  srpt_core_tpg* tpg2_ = nullptr;
  int thread2_ = -1;
  int write2_ = -1;
};

// Port 1's write is making the SRQ when port 2's arrives: one SRQ is made,
// both ports use it, each port's channel is logged out once.
TEST_F(SrqSwitchTest, BothPortsSwitchOnAtOnce) {
  const Outcome a = LiveOn(SRPT_CM_IB, 1);
  const Outcome b = LiveOn(SRPT_CM_RDMA, 2);
  // A command in flight on each, on its own receive ring.
  Receive(a, EncodeSrpCmd(SrpCmd{}));
  Receive(b, EncodeSrpCmd(SrpCmd{}));
  SwitchPort2AtNextCall("srpt_k_srq_create", "1");
  const int write1 = SetUseSrq(tpg_, "1");
  ExpectBothDone(write1);
  ExpectNoViolation();
  EXPECT_EQ(1u, fake::call_count(fake::Call::SrqCreate))
      << "the device's SRQ is made once:\n" << fake::trace_dump();
  EXPECT_EQ(0u, fake::count_calls("srpt_k_srq_destroy"));
  ASSERT_EQ(1u, fake::live_srqs());
  EXPECT_EQ(kSrqSize, SrqPosted());
  EXPECT_EQ(1u, srpt_core_tpg_attr_show(tpg_, SRPT_ATTR_USE_SRQ));
  EXPECT_EQ(1u, srpt_core_tpg_attr_show(tpg2_, SRPT_ATTR_USE_SRQ));
  ExpectReleasedByChannel(a);
  ExpectReleasedByChannel(b);
  EXPECT_EQ(2u, fake::count_log_lines(SRPT_LOG_INFO, "closing: use_srq changed"))
      << fake::log_dump();
  // New logins on both ports take their IUs from the device's SRQ.
  const Outcome a2 = LiveOn(SRPT_CM_RDMA, 1);
  const Outcome b2 = LiveOn(SRPT_CM_IB, 2);
  EXPECT_EQ(Srq(), Qp(a2)->params.srq);
  EXPECT_EQ(Srq(), Qp(b2)->params.srq);
  Receive(a2, EncodeSrpCmd(SrpCmd{}));
  Receive(b2, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kSrqSize - 2, SrqPosted());
  ExpectNoViolation();
}

// Both ports on the SRQ, both switch off at once, each with a command
// holding an SRQ buffer: every buffer goes back, the SRQ is destroyed once,
// after the last channel on it.
TEST_F(SrqSwitchTest, BothPortsSwitchOffAtOnce) {
  ASSERT_EQ(0, SetUseSrq(tpg_, "1"));
  ASSERT_EQ(0, SetUseSrq(tpg2_, "1"));
  ASSERT_EQ(1u, fake::call_count(fake::Call::SrqCreate));
  const Outcome a = LiveOn(SRPT_CM_IB, 1);
  const Outcome b = LiveOn(SRPT_CM_RDMA, 2);
  Receive(a, EncodeSrpCmd(SrpCmd{}));
  Receive(b, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(kSrqSize - 2, SrqPosted());
  srpt_k_srq* const srq = Srq();
  // Port 1's write waits for its channel's release (the session drain)
  // when port 2's arrives.
  SwitchPort2AtNextCall("srpt_k_session_drain", "0");
  const int write1 = SetUseSrq(tpg_, "0");
  ExpectBothDone(write1);
  ExpectNoViolation();
  ExpectReleasedByChannel(a);
  ExpectReleasedByChannel(b);
  EXPECT_EQ(2u, fake::count_log_lines(SRPT_LOG_INFO, "closing: use_srq changed"));
  EXPECT_EQ(0u, fake::live_srqs());
  EXPECT_EQ(1u, fake::count_calls("srpt_k_srq_destroy", srq));
  EXPECT_EQ(1u, fake::call_count(fake::Call::SrqCreate));
  // srpt_k_srq_destroy reports buffers never given back (a violation).
  EXPECT_LT(fake::find_last_call("srpt_k_qp_destroy"),
            fake::find_last_call("srpt_k_srq_destroy"));
  const Outcome a2 = LiveOn(SRPT_CM_IB, 1);
  const Outcome b2 = LiveOn(SRPT_CM_RDMA, 2);
  EXPECT_EQ(nullptr, Qp(a2)->params.srq);
  EXPECT_EQ(nullptr, Qp(b2)->params.srq);
  EXPECT_EQ(kCredits, Qp(a2)->recvs.size());
  ExpectNoViolation();
}

// One port switches on while the other switches off: the SRQ the first
// one uses stays; the second port's channel comes back on its own ring.
TEST_F(SrqSwitchTest, OnePortSwitchesOnWhileTheOtherSwitchesOff) {
  ASSERT_EQ(0, SetUseSrq(tpg2_, "1"));
  const Outcome a = LiveOn(SRPT_CM_IB, 1);
  const Outcome b = LiveOn(SRPT_CM_IB, 2);
  Receive(b, EncodeSrpCmd(SrpCmd{}));
  SwitchPort2AtNextCall("srpt_k_session_drain", "0");
  const int write1 = SetUseSrq(tpg_, "1");
  ExpectBothDone(write1);
  ExpectNoViolation();
  ExpectReleasedByChannel(a);
  ExpectReleasedByChannel(b);
  EXPECT_EQ(1u, fake::call_count(fake::Call::SrqCreate));
  ASSERT_EQ(1u, fake::live_srqs()) << "port 1 uses it";
  EXPECT_EQ(kSrqSize, SrqPosted());
  const Outcome a2 = LiveOn(SRPT_CM_RDMA, 1);
  const Outcome b2 = LiveOn(SRPT_CM_RDMA, 2);
  EXPECT_EQ(Srq(), Qp(a2)->params.srq);
  EXPECT_EQ(nullptr, Qp(b2)->params.srq);
  ExpectNoViolation();
}

// Port 1 switches off while its SRQ fails: the device's event work finds
// the SRQ failed and starts making a new one; meanwhile the switch drops the
// device's SRQ, no port using it. The event work must then install nothing
// and close nothing: before, it found no failed SRQ to take out, installed
// the new one (4095 buffers no port uses), and closed every channel whose
// SRQ was "none", the channels with receive rings of their own, port 2's.
TEST_F(SrqSwitchTest, AnSrqFailingWhileItsLastPortSwitchesOffClosesNoChannelWithoutSrq) {
  ASSERT_EQ(0, SetUseSrq(tpg_, "1"));
  const Outcome a = LiveOn(SRPT_CM_IB, 1);
  (void)LiveOn(SRPT_CM_IB, 2);  // on a receive ring of its own
  srpt_k_srq* const failing = Srq();
  int event_thread = -1;
  // While port 1's switch waits for its channel's release (it has turned
  // use_srq off, and will drop the SRQ next), the SRQ fails, and the event
  // work runs on another CPU until it is making the new SRQ.
  fake::on_next_call("srpt_k_session_drain", [&] {
    fake::srq_event(failing, SRPT_SRQ_EVENT_ERR);
    fake::on_next_call("srpt_k_srq_create", [] { fake::preempt(); });
    event_thread = fake::spawn_thread([] { fake::run_one_work_on(true); });
  });
  ASSERT_EQ(0, SetUseSrq(tpg_, "0"));
  ASSERT_NE(-1, event_thread) << fake::trace_dump();
  EXPECT_EQ(0u, fake::run_threads()) << "the event work never finished:\n" << fake::trace_dump();
  EXPECT_TRUE(fake::thread_finished(event_thread));
  RunWorks();
  ExpectReleasedByChannel(a);
  // (Through the channels file: a channel closed by mistake is freed.)
  srpt_k_seq seq;
  srpt_core_show_channels(&seq);
  EXPECT_NE(std::string::npos, seq.text.find(" ib_cm live mlx5_0/2 ")) << seq.text;
  EXPECT_FALSE(fake::logged(SRPT_LOG_INFO, "closing: shared receive queue failed"))
      << fake::log_dump();
  EXPECT_EQ(0u, fake::live_srqs()) << "no port uses an SRQ";
  EXPECT_FALSE(fake::logged(SRPT_LOG_NOTICE, "replaces the failed one")) << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO,
                           "mlx5_0: the failed shared receive queue was dropped meanwhile "
                           "(use_srq=0); none replaces it"))
      << fake::log_dump();
  EXPECT_EQ(2u, fake::call_count(fake::Call::SrqCreate)) << "the new one was made, then dropped";
  ExpectNoViolation();
}

}  // namespace
