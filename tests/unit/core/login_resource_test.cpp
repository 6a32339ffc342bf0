// SPDX-License-Identifier: GPL-2.0
// Logins that fail part-way: every resource a channel needs failing in turn
// (the numbered allocation sequence, and each kernel call with a chosen
// errno), a TPG disabled or dropped while the login is in flight, and an
// accept that fails after the channel took the cm_id. Before adoption every
// failure is an SRP_LOGIN_REJ, a non-zero return (the CM core destroys the
// cm_id) and nothing left behind; after it, zero and a release through the
// channel, which destroys the cm_id exactly once.
#include <functional>
#include <string>

#include <srpt/abi/fabric.h>
#include <srpt/core/log_limit.h>

#include "../harness/login_test.h"

namespace {

using srpt::srp::kRejChannelLimitReached;
using srpt::srp::kRejInsufficientResources;

class LoginResourceTest : public LoginTest {
 protected:
  // Every step starts from the same state and counts the login's own
  // allocations: no receive ring cached by an earlier step stands in for
  // one (RecvRingCacheTest has a failed login's ring reused).
  srpt_params SetUpParams() const override { return ParamsWithRingCache(0); }
  struct Baseline {
    size_t blocks, mutexes, spinlocks, qps, rings, cmds, works, completions,
        sessions;
  };
  static Baseline Now() {
    return Baseline{fake::live_allocations(), fake::live_mutexes(),
                    fake::live_spinlocks(),   fake::live_qps(),
                    fake::live_rings(),       fake::live_cmds(),
                    fake::live_works(),       fake::live_completions(),
                    fake::live_sessions()};
  }
  static void ExpectNothingKept(const Baseline& b) {
    EXPECT_EQ(b.blocks, fake::live_allocations()) << "srpt_kzalloc blocks";
    EXPECT_EQ(b.mutexes, fake::live_mutexes());
    EXPECT_EQ(b.spinlocks, fake::live_spinlocks());
    EXPECT_EQ(b.qps, fake::live_qps());
    EXPECT_EQ(b.rings, fake::live_rings());
    EXPECT_EQ(b.cmds, fake::live_cmds());
    EXPECT_EQ(b.works, fake::live_works());
    EXPECT_EQ(b.completions, fake::live_completions());
    EXPECT_EQ(b.sessions, fake::live_sessions());
    EXPECT_EQ(0u, fake::queued_works());
    EXPECT_EQ(0u, fake::held_mutexes());
    EXPECT_EQ(0u, fake::held_spinlocks());
  }

  // Fails allocation attempt N of a login, N = 0, 1, ..., until the login
  // succeeds with the failure still armed. Returns the number of points.
  size_t WalkAllocations(srpt_cm_kind kind) {
    for (size_t n = 0; n < 400; n++) {
      SCOPED_TRACE("allocation " + std::to_string(n) + " fails");
      const Baseline before = Now();
      fake::fail_nth_allocation(n);
      LoginReq r = GoodReq(kind);
      r.tag = n;
      const Outcome o = Login(r);
      const bool injected = fake::injected_failure_count() > 0;
      fake::disarm_allocation_failures();
      if (!injected) {
        ExpectAccepted(o);
        return n;
      }
      ExpectRejected(o, kRejInsufficientResources, n);
      ExpectNothingKept(before);
      EXPECT_TRUE(TakeBugReports().empty());
      if (HasFatalFailure()) return n;
    }
    ADD_FAILURE() << "the walk did not end";
    return 0;
  }

  // The call fails once with `err`, `skip` calls from now: the login is
  // refused with `reason` and keeps nothing.
  void ExpectStepRefused(fake::Call call, int err, size_t skip, uint32_t reason,
                         srpt_cm_kind kind = SRPT_CM_IB) {
    SCOPED_TRACE(std::string(fake::call_name(call)) + " #" + std::to_string(skip) +
                 " fails with " + std::to_string(err));
    const Baseline before = Now();
    const size_t failures = fake::injected_call_failures(call);
    fake::fail_call(call, err, skip);
    const Outcome o = Login(GoodReq(kind));
    EXPECT_EQ(failures + 1, fake::injected_call_failures(call))
        << "the step was reached";
    fake::disarm_call(call);
    ExpectRejected(o, reason);
    ExpectNothingKept(before);
    // Each step is a login of its own, not a flood: the next one's log lines
    // are within a fresh budget of the initiator (log_limit.h).
    fake::advance_ns(srpt::LogLimiter::kIntervalNs);
  }
};

}  // namespace

TEST_F(LoginResourceTest, EveryAllocationOfASmallChannelFailsInTurn) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const size_t points = WalkAllocations(kind);
    EXPECT_EQ(kSmallLoginAllocations, points);
    RunWorks();
  }
}

TEST_F(LoginResourceTest, EveryAllocationOfAFullChannelFailsInTurn) {
  const size_t points = WalkAllocations(SRPT_CM_IB);
  EXPECT_EQ(6u + kCredits + 2 + 1 + 2 + kCredits + 3, points);
}

TEST_F(LoginResourceTest, EachKernelResourceFailingIs00010001) {
  using fake::Call;
  const int enomem = -SRPT_ENOMEM;
  ExpectStepRefused(Call::SpinlockCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::RingCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::RingCreate, enomem, 1, kRejInsufficientResources);
  ExpectStepRefused(Call::QpCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::QpCreate, -SRPT_EINVAL, 0, kRejInsufficientResources,
                    SRPT_CM_RDMA);
  ExpectStepRefused(Call::CmdCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::CmdCreate, enomem, 63, kRejInsufficientResources);
  ExpectStepRefused(Call::WorkCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::CompletionCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::SessionCreate, enomem, 0, kRejInsufficientResources);
  ExpectStepRefused(Call::SessionCreate, -SRPT_EIO, 0, kRejInsufficientResources,
                    SRPT_CM_RDMA);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "queue pair failed: -12"))
      << fake::log_dump();
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "session setup failed"));
  // And the next login gets everything.
  ExpectAccepted(Login(GoodReq()));
}

TEST_F(LoginResourceTest, PostingReceivesFailingIs00010001AndFlushesThePosted) {
  for (size_t skip : {0, 1, 63}) {
    ExpectStepRefused(fake::Call::PostRecv, -SRPT_ENOMEM, skip,
                      kRejInsufficientResources);
    EXPECT_EQ(skip, fake::count_calls("flush_recv"))
        << "the receives posted before the failure were flushed";
    fake::reset_trace();
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "posting receive buffers failed"));
}

TEST_F(LoginResourceTest, SessionCreateRefusedIs00010006) {
  // The target core says -EACCES: no ACL, whatever the fake's ACL says.
  ExpectStepRefused(fake::Call::SessionCreate, -SRPT_EACCES, 0,
                    kRejChannelLimitReached);
}

TEST_F(LoginResourceTest, ResourcesBeatNoAcl) {
  // A GID-named target port too: three names are tried; the one with an
  // ACL (which lets the login past the ACL check) fails for resources, the
  // others find no ACL.
  srpt_core_tport* gid_tport = nullptr;
  srpt_core_tpg* gid_tpg = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Gid, &gid_tport));
  ASSERT_EQ(0, MakeTpg(gid_tport, "1", &gid_tpg));
  ASSERT_EQ(0, srpt_core_tpg_enable(gid_tpg, 1));
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  fake::allow_initiator(KTpg(gid_tpg), kInitiatorId0x);
  fake::fail_call(fake::Call::SessionCreate, -SRPT_ENOMEM, 1);
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectRejected(o, kRejInsufficientResources);
  ASSERT_EQ(3u, fake::session_attempts().size());
  EXPECT_EQ(kInitiatorId0x, fake::session_attempts()[1].name);
  EXPECT_EQ(-SRPT_ENOMEM, fake::session_attempts()[1].ret);
}

TEST_F(LoginResourceTest, AclRemovedAfterTheCheckIs00010006) {
  // The ACL check before the channel is advice: an ACL removed while the
  // channel is built is refused by the session setup, with the same answer.
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Baseline before = Now();
    fake::on_next_call("srpt_k_qp_create", [this] {
      fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
      fake::disallow_initiator(KTpg(tpg_), kInitiatorAddr);
    });
    const Outcome o = Login(GoodReq(kind));
    ExpectRejected(o, kRejChannelLimitReached);
    EXPECT_NE(0u, fake::find_call("srpt_k_tpg_admits")) << "the ACL was asked first";
    ASSERT_FALSE(fake::session_attempts().empty());
    EXPECT_EQ(-SRPT_EACCES, fake::session_attempts().back().ret);
    ExpectNothingKept(before);
    fake::allow_initiator(KTpg(tpg_), kInitiatorGuidName);
    fake::allow_initiator(KTpg(tpg_), kInitiatorAddr);
  }
  EXPECT_EQ(2u, fake::count_log_lines(SRPT_LOG_WARNING, "no ACL admits this initiator"));
}

TEST_F(LoginResourceTest, TpgDisabledWhileTheLoginIsInFlightIs00010001) {
  // A configfs write of enable=0 runs while the target core sets up the
  // session: it clears the flag at once and then waits for the login lock.
  int writer = -1;
  int writer_ret = 1;
  fake::on_session_create([&](srpt_k_session*) {
    writer = fake::spawn_thread([&] { writer_ret = srpt_core_tpg_enable(tpg_, 0); });
    EXPECT_FALSE(fake::thread_finished(writer)) << "it waits for the login";
  });
  const Baseline before = Now();
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  fake::on_session_create(nullptr);
  ExpectRejected(o, kRejInsufficientResources);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "TPG disabled while the login was in flight"))
      << fake::log_dump();
  EXPECT_EQ(1u, fake::count_calls("srpt_k_session_remove"));
  EXPECT_EQ(0u, fake::run_threads()) << "the write completes after the login";
  EXPECT_TRUE(fake::thread_finished(writer));
  EXPECT_EQ(0, writer_ret);
  ExpectNothingKept(before);
  // Disabled: the next login finds no TPG.
  ExpectRejected(Login(GoodReq(SRPT_CM_IB)), kRejInsufficientResources);
}

TEST_F(LoginResourceTest, TpgDisabledBeforeTheSessionIsSetUpIs00010001) {
  // The TPG goes while the channel is built, before the session loop looks
  // for an enabled TPG: with none left to try, the answer is "TPG disabled"
  // (0x00010001), as at commit, not "no ACL admits" (0x00010006). Seen in
  // guest cases 23/24, whose logins stream while the TPG is toggled.
  int writer = -1;
  fake::on_next_call("srpt_k_qp_create", [&] {
    writer = fake::spawn_thread([&] { srpt_core_tpg_enable(tpg_, 0); });
  });
  const Baseline before = Now();
  const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
  ExpectRejected(o, kRejInsufficientResources);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING,
                           "TPG disabled while the login was in flight"))
      << fake::log_dump();
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::thread_finished(writer));
  ExpectNothingKept(before);
}

TEST_F(LoginResourceTest, TpgDroppedWhileTheLoginIsInFlightIs00010001) {
  fake::on_session_create([&](srpt_k_session*) {
    fake::on_session_create(nullptr);
    fake::spawn_thread([&] { DropTpg(tpg_); });
  });
  const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
  ExpectRejected(o, kRejInsufficientResources);
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_EQ(0u, fake::live_sessions());
}

TEST_F(LoginResourceTest, DeviceRemovedWhileTheLoginIsInFlight) {
  // Removal disables the device's TPGs at once, then destroys the IB/CM
  // listener, which waits for the running REQ callback (not for the login
  // lock): the login sees its TPG disabled when it
  // commits and is refused; then the removal finishes.
  int remover = -1;
  fake::on_session_create([&](srpt_k_session*) {
    fake::on_session_create(nullptr);
    remover = fake::spawn_thread([&] { RemoveDevice(cdev_); });
  });
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectRejected(o, kRejInsufficientResources);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "TPG disabled while the login was in flight"))
      << fake::log_dump();
  EXPECT_FALSE(fake::thread_finished(remover)) << "the listener waits for the callback";
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::thread_finished(remover));
  cdev_ = nullptr;
  EXPECT_EQ(0u, fake::live_listeners());
  EXPECT_EQ(0u, fake::live_sessions());
  EXPECT_EQ(0u, fake::live_qps());
}

TEST_F(LoginResourceTest, AcceptFailingAfterAdoptionReturnsZeroAndReleases) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Baseline before = Now();
    fake::fail_call(fake::Call::CmAccept, -SRPT_EIO);
    const Outcome o = Login(GoodReq(kind));
    EXPECT_EQ(0, o.ret) << "a channel owns the cm_id: zero, whatever happened";
    EXPECT_EQ(1, o.id->accept_attempts);
    EXPECT_TRUE(o.id->accepts.empty());
    EXPECT_TRUE(o.id->rejects.empty()) << "no reject after adoption";
    EXPECT_EQ(0, o.id->destroys()) << "not from inside its own callback";
    EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "accept failed: -5")) << fake::log_dump();
    ASSERT_EQ(1u, fake::queued_works()) << "the release work";
    RunWorks();
    ExpectReleasedByChannel(o);
    EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "login failed after accept"));
    ExpectNothingKept(before);
  }
}

TEST_F(LoginResourceTest, AcceptFailingDoesNotTakeTheTpgDown) {
  fake::fail_call(fake::Call::CmAccept, -SRPT_ENOMEM);
  const Outcome failed = Login(GoodReq(SRPT_CM_IB));
  EXPECT_EQ(0, failed.ret);
  RunWorks();
  ExpectReleasedByChannel(failed);
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
}

TEST_F(LoginResourceTest, SessionClosedByTheTargetCoreWhileTheLoginIsInFlight) {
  // An ACL rmdir races the login: the target core closes the session right
  // after target_setup_session() handed it over, and the module's work queue
  // runs whatever that queued before the login goes on.
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Baseline before = Now();
    fake::on_session_create([](srpt_k_session* sess) {
      fake::on_session_create(nullptr);
      fake::close_session(sess);
      fake::run_works();
    });
    const Outcome o = Login(GoodReq(kind));
    ExpectRejected(o, kRejInsufficientResources);
    EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "while the login was in flight"))
        << fake::log_dump();
    ExpectNothingKept(before);
  }
}

TEST_F(LoginResourceTest, SessionClosedWhileTheLoginIsInFlightReleaseLater) {
  // The same, with the work queue slower than the login.
  const Baseline before = Now();
  fake::on_session_create([](srpt_k_session* sess) {
    fake::on_session_create(nullptr);
    fake::close_session(sess);
  });
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectRejected(o, kRejInsufficientResources);
  RunWorks();
  ExpectNothingKept(before);
}
