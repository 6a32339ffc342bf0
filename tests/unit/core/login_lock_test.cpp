// SPDX-License-Identifier: GPL-2.0
// What a login waits for: the login lock covers what a
// login shares, the TPGs of its port (and the SRQ choice of that port), not
// every device of the target. A login held up on one port, or a configfs
// write or device removal waiting there for a channel's release, must not
// hold up a login on another port or another device.
//
// The fake runs every kernel thread on the test's thread (thread.h). A
// login "held up" on port A is modelled by a hook that runs login B at the
// point where A waits: inside A's target-core session setup, or inside the
// release work that a TPG disable, a use_srq switch or a device removal on
// A waits for. Login B runs as the CM's other worker, which would wait for
// ever for a lock that A's thread holds: with one global login lock the
// fake's lock checker reports that deadlock.
#include <cstring>
#include <string>
#include <vector>

#include <srpt/abi/fabric.h>

#include "../harness/login_test.h"

namespace {

// A second HCA with one InfiniBand port.
constexpr uint64_t kNodeGuidB = 0x506b4b0300a1b2c0ull;
constexpr uint64_t kPortBId = 0x506b4b0300a1b2c1ull;
constexpr const char* kPortBGuid = "506b:4b03:00a1:b2c1";

class LoginLockTest : public LoginTest {
 protected:
  void SetUp() override {
    LoginTest::SetUp();
    ASSERT_EQ(0, AddDevice(dev_b_, &cdev_b_));
    ServeTpg(kPortBGuid, &tport_b_, &tpg_b_);
  }

  LoginReq OnB(srpt_cm_kind kind) {
    LoginReq r = GoodReq(kind);
    r.kdev = dev_b_.kdev();
    r.port_num = 1;
    return r;
  }

  // Port 2 of device A served too: its own target port, TPG and ACLs.
  void ServePort2() {
    srpt_core_tport* t = nullptr;
    ServeTpg(kPort2Guid, &t, &tpg_a2_);
  }

  // Runs login `r` at the entry of the next `call`, as the CM's other worker.
  void LoginAtNextCall(const std::string& call, const LoginReq& r) {
    fake::on_next_call(call, [this, r] {
      other_ = Login(r);
      other_ran_ = true;
    });
  }

  // No thread waited for a lock that a thread which cannot go on holds.
  void ExpectNoDeadlock() {
    std::string all;
    for (const std::string& v : fake::take_violations()) all += "  " + v + "\n";
    EXPECT_TRUE(all.empty()) << "the fake saw:\n" << all;
  }

  void ExpectOtherLoginServed() {
    ASSERT_TRUE(other_ran_) << "the hook never ran:\n" << fake::trace_dump();
    ExpectAccepted(other_);
  }

  FakeDevice dev_b_ = DeviceB();
  srpt_core_device* cdev_b_ = nullptr;
  srpt_core_tport* tport_b_ = nullptr;
  srpt_core_tpg* tpg_b_ = nullptr;
  srpt_core_tpg* tpg_a2_ = nullptr;
  Outcome other_{};
  bool other_ran_ = false;

 private:
  static FakeDevice DeviceB() {
    FakeDevice d("mlx5_1", kNodeGuidB);
    d.AddPort(MakeGid(kSubnetPrefix, kPortBId));
    return d;
  }
};

}  // namespace

TEST_F(LoginLockTest, LoginOnAnotherDeviceWhileALoginIsInSessionSetup) {
  fake::on_session_create([this](srpt_k_session*) {
    fake::on_session_create(nullptr);
    // Login A is inside target_setup_session(); device B's REQ arrives.
    other_ = Login(OnB(SRPT_CM_IB));
    other_ran_ = true;
  });
  const Outcome a = Login(GoodReq(SRPT_CM_IB));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectAccepted(a);
}

TEST_F(LoginLockTest, LoginOnAnotherDeviceWhileATpgDisableWaitsForAChannel) {
  const Outcome live = LiveChannel(SRPT_CM_IB);
  // The disable waits for the channel's release work, which drains the
  // session: device B's REQ arrives meanwhile.
  LoginAtNextCall("srpt_k_session_drain", OnB(SRPT_CM_RDMA));
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectReleasedByChannel(live);
}

TEST_F(LoginLockTest, LoginOnAnotherDeviceWhileATpgDropWaitsForAChannel) {
  const Outcome live = LiveChannel(SRPT_CM_IB);
  LoginAtNextCall("srpt_k_session_drain", OnB(SRPT_CM_IB));
  DropTpg(tpg_);
  tpg_ = nullptr;
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectReleasedByChannel(live);
}

TEST_F(LoginLockTest, LoginOnAnotherDeviceWhileAUseSrqSwitchWaitsForAChannel) {
  const Outcome live = LiveChannel(SRPT_CM_IB);
  LoginAtNextCall("srpt_k_session_drain", OnB(SRPT_CM_IB));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_USE_SRQ, "1", 1));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectReleasedByChannel(live);
  EXPECT_EQ(nullptr, Qp(other_)->params.srq) << "device B has no SRQ";
}

TEST_F(LoginLockTest, LoginOnAnotherDeviceWhileADeviceRemovalWaitsForAChannel) {
  const Outcome live = LiveChannel(SRPT_CM_RDMA);
  LoginAtNextCall("srpt_k_session_drain", OnB(SRPT_CM_RDMA));
  RemoveDevice(cdev_);
  cdev_ = nullptr;
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectReleasedByChannel(live);
}

TEST_F(LoginLockTest, LoginOnTheOtherPortWhileATpgDisableWaitsForAChannel) {
  ServePort2();
  const Outcome live = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.port_num = 2;
  LoginAtNextCall("srpt_k_session_drain", r);
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  ExpectReleasedByChannel(live);
}

TEST_F(LoginLockTest, LoginOnTheOtherPortWhileAUseSrqSwitchWaitsForAChannel) {
  // Port 2 keeps use_srq=0: it shares nothing with port 1's switch.
  ServePort2();
  const Outcome live = LiveChannel(SRPT_CM_IB);
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.port_num = 2;
  LoginAtNextCall("srpt_k_session_drain", r);
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_USE_SRQ, "1", 1));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
  EXPECT_EQ(nullptr, Qp(other_)->params.srq) << "port 2 does not use the SRQ";
  ExpectReleasedByChannel(live);
  // Port 1 logs in on the SRQ.
  const Outcome again = Login(GoodReq(SRPT_CM_RDMA));
  ExpectAccepted(again);
  EXPECT_NE(nullptr, Qp(again)->params.srq);
}

// What a login shares stays serialised: a second login on the same port
// waits for the one in session setup (a spawned thread is a CM worker that
// can wait), and then both are served.
TEST_F(LoginLockTest, ASecondLoginOnTheSamePortWaitsForTheFirst) {
  int second = -1;
  fake::on_session_create([&](srpt_k_session*) {
    fake::on_session_create(nullptr);
    second = fake::spawn_thread([this] {
      other_ = Login(GoodReq(SRPT_CM_RDMA));
      other_ran_ = true;
    });
    EXPECT_FALSE(fake::thread_finished(second)) << "it waits for the port's login lock";
    EXPECT_TRUE(fake::session_attempts().size() == 1) << "and has not reached the TPG";
  });
  const Outcome a = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(a);
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::thread_finished(second));
  ExpectNoDeadlock();
  ExpectOtherLoginServed();
}

// Device removal waits for what is its own (its event work, its channels'
// releases), not for the module's whole work queue: a channel of device B
// whose release waits for B's port (down, up to 20 s), or for a backstore,
// does not hold up the removal of device A, nor with it the RDMA core.
TEST_F(LoginLockTest, RemovingOneDeviceDoesNotWaitForAReleaseOnAnother) {
  const Outcome a = LiveChannel(SRPT_CM_IB);
  Outcome b = Login(OnB(SRPT_CM_IB));
  ExpectAccepted(b);
  Establish(b);
  fake::set_ports_down_until(~0ull);
  fake::fail_recv(Qp(b));  // B's channel closes; its release is queued
  ASSERT_EQ(1u, fake::queued_works());
  // B's release work runs on a worker of its own and waits for B's port.
  fake::on_next_call("srpt_k_sleep_ms", [] { fake::preempt(); });
  const int worker = fake::spawn_thread([] { fake::run_works_on_this_thread(); });
  ASSERT_FALSE(fake::thread_finished(worker));
  ASSERT_TRUE(fake::logged(SRPT_LOG_INFO, "port 1 is down; the disconnect waits"));
  const uint64_t start = fake::now_ns();
  RemoveDevice(cdev_);
  EXPECT_LT(fake::now_ns() - start, 1000000000ull)
      << "removing A waited for B's release\n" << fake::log_dump();
  ExpectReleasedByChannel(a);
  fake::set_ports_down_until(0);
  fake::run_threads();
  EXPECT_TRUE(fake::thread_finished(worker));
  ExpectReleasedByChannel(b);
}
