// SPDX-License-Identifier: GPL-2.0
// Self-tests of the login path's fakes (cm, queue, session, work,
// completion, cmd, spinlocks, threads, call failures): the checks the login
// and channel tests rely on must actually fire.
#include <srpt/abi/alloc.h>
#include <srpt/abi/cm.h>
#include <srpt/abi/lock.h>
#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>

#include <string>

#include "../harness/core_test.h"
#include "../harness/login_test.h"

namespace {

class FakeLoginTest : public CoreTest {
 protected:
  static std::string AllLeaks() {
    std::string out;
    for (const std::string& l : fake::leaks()) out += l + "\n";
    return out;
  }
};

int g_runs = 0;
std::vector<int> g_order;
void Count(void* arg) {
  g_runs++;
  g_order.push_back(static_cast<int>(reinterpret_cast<intptr_t>(arg)));
}
void DestroySelf(void* arg) {
  g_runs++;
  srpt_k_work_destroy(*static_cast<srpt_k_work**>(arg));
}

}  // namespace

// --- failure injection ---------------------------------------------------------------

TEST_F(FakeLoginTest, FailCallHitsTheChosenCallOnce) {
  fake::fail_call(fake::Call::WorkCreate, -SRPT_EIO, 1);
  srpt_k_work* w[3] = {};
  EXPECT_EQ(0, srpt_k_work_create(Count, nullptr, &w[0]));
  EXPECT_EQ(-SRPT_EIO, srpt_k_work_create(Count, nullptr, &w[1]));
  EXPECT_EQ(0, srpt_k_work_create(Count, nullptr, &w[2]));
  EXPECT_EQ(3u, fake::call_count(fake::Call::WorkCreate));
  EXPECT_EQ(1u, fake::injected_call_failures(fake::Call::WorkCreate));
  EXPECT_EQ(0u, fake::allocation_attempts() - 2) << "an injected call is no attempt";
  srpt_k_work_destroy(w[0]);
  srpt_k_work_destroy(w[2]);
}

TEST_F(FakeLoginTest, FailCallFromNOn) {
  fake::fail_call(fake::Call::CompletionCreate, -SRPT_ENOMEM, 0, true);
  srpt_k_completion* c = nullptr;
  EXPECT_EQ(-SRPT_ENOMEM, srpt_k_completion_create(&c));
  EXPECT_EQ(-SRPT_ENOMEM, srpt_k_completion_create(&c));
  fake::disarm_call(fake::Call::CompletionCreate);
  EXPECT_EQ(0, srpt_k_completion_create(&c));
  srpt_k_completion_destroy(c);
}

TEST_F(FakeLoginTest, EveryCreationIsAnAllocationAttempt) {
  FakeDevice dev("d", 1);
  struct Step {
    const char* what;
    std::function<int()> make;
  };
  srpt_k_ring* ring = nullptr;
  srpt_k_work* work = nullptr;
  srpt_k_completion* comp = nullptr;
  srpt_k_listener* l = nullptr;
  srpt_k_session* sess = nullptr;
  srpt_k_tpg* tpg = fake::new_ktpg("t");
  fake::allow_initiator(tpg, "i");
  const Step steps[] = {
      {"spinlock", [] { return srpt_spinlock_create(SRPT_LOCK_TEST) ? 0 : -SRPT_ENOMEM; }},
      {"ring", [&] { return srpt_k_ring_create(dev.kdev(), 2, 64, 0, SRPT_RING_SEND, &ring); }},
      {"work", [&] { return srpt_k_work_create(Count, nullptr, &work); }},
      {"completion", [&] { return srpt_k_completion_create(&comp); }},
      {"rdma listener", [&] { return srpt_k_rdma_listen(1, &l); }},
      {"ib listener", [&] { return srpt_k_ib_listen(dev.kdev(), 1, &l); }},
      {"session", [&] { return srpt_k_session_create(tpg, "i", nullptr, &sess); }},
  };
  for (const Step& s : steps) {
    fake::fail_nth_allocation(0);
    EXPECT_EQ(-SRPT_ENOMEM, s.make()) << s.what;
    EXPECT_EQ(1u, fake::injected_failure_count()) << s.what;
  }
  fake::disarm_allocation_failures();
  EXPECT_TRUE(fake::leaks().empty()) << AllLeaks();
}

// --- leaks --------------------------------------------------------------------------------

TEST_F(FakeLoginTest, LiveObjectsAreLeaks) {
  FakeDevice dev("d", 1);
  srpt_spinlock* lock = srpt_spinlock_create(SRPT_LOCK_CHANNEL);
  srpt_k_ring* ring = nullptr;
  srpt_k_work* work = nullptr;
  srpt_k_completion* comp = nullptr;
  srpt_k_listener* l = nullptr;
  srpt_k_session* sess = nullptr;
  srpt_k_tpg* tpg = fake::new_ktpg("t");
  fake::allow_initiator(tpg, "i");
  ASSERT_EQ(0, srpt_k_ring_create(dev.kdev(), 2, 64, 0, SRPT_RING_RECV, &ring));
  ASSERT_EQ(0, srpt_k_work_create(Count, nullptr, &work));
  ASSERT_EQ(0, srpt_k_completion_create(&comp));
  ASSERT_EQ(0, srpt_k_rdma_listen(5555, &l));
  ASSERT_EQ(0, srpt_k_session_create(tpg, "i", nullptr, &sess));
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  srpt_qp_params qp_params{4, 4, nullptr, 0xffff};
  srpt_k_qp* qp = nullptr;
  ASSERT_EQ(0, srpt_k_qp_create(SRPT_CM_IB, id, dev.kdev(), 1, &qp_params, &qp));
  srpt_k_cmd* cmd = nullptr;
  ASSERT_EQ(0, srpt_k_cmd_create(qp, 1, nullptr, &cmd));
  srpt_k_work_queue(work);
  const std::string leaks = AllLeaks();
  for (const char* what : {"cm_id #1 (IB/CM) was never destroyed", "listener (RDMA/CM)",
                           "QP #1", "receive ring", "command context", "session of \"i\"",
                           "work item was never destroyed", "1 work items are still queued",
                           "completion", "1 spinlocks"}) {
    EXPECT_NE(std::string::npos, leaks.find(what)) << what << " in\n" << leaks;
  }
  fake::run_works();
  srpt_k_cmd_destroy(cmd);
  srpt_k_qp_destroy(qp);
  fake::cm_destroy_by_caller(id);
  srpt_k_session_drain(sess);
  srpt_k_session_remove(sess);
  srpt_k_listener_destroy(l);
  srpt_k_completion_destroy(comp);
  srpt_k_work_destroy(work);
  srpt_k_ring_destroy(ring);
  srpt_spinlock_destroy(lock);
  EXPECT_TRUE(fake::leaks().empty()) << AllLeaks();
}

// --- spinlocks and sleeping -------------------------------------------------------------------

TEST_F(FakeLoginTest, SleepingUnderASpinlockIsAViolation) {
  srpt_spinlock* l = srpt_spinlock_create(SRPT_LOCK_TARGET);  // first in order
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  srpt_spin_lock_irqsave(l);
  EXPECT_TRUE(fake::spinlock_held(l));
  void* atomic = srpt_kzalloc(8, SRPT_ALLOC_ATOMIC);
  EXPECT_TRUE(fake::take_violations().empty()) << "an atomic allocation is fine";
  void* sleeping = srpt_kzalloc(8, SRPT_ALLOC_SLEEP);
  ExpectOneViolation("may sleep and was called under a spinlock");
  srpt_mutex_lock(m);
  ExpectOneViolation("srpt_mutex_lock may sleep");
  srpt_mutex_unlock(m);
  srpt_k_completion* c = nullptr;
  EXPECT_EQ(0, srpt_k_completion_create(&c));
  ExpectOneViolation("srpt_k_completion_create may sleep");
  srpt_spin_unlock_irqrestore(l);
  EXPECT_EQ(0, srpt_k_wait(c, 0) + SRPT_ETIMEDOUT);
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_k_completion_destroy(c);
  srpt_kfree(atomic);
  srpt_kfree(sleeping);
  srpt_mutex_destroy(m);
  srpt_spinlock_destroy(l);
}

TEST_F(FakeLoginTest, SpinlockChecks) {
  srpt_spinlock* l = srpt_spinlock_create(SRPT_LOCK_CHANNEL);
  srpt_spin_lock_irqsave(l);
  srpt_spin_lock_irqsave(l);
  ExpectOneViolation("already locked");
  srpt_spin_unlock_irqrestore(l);
  srpt_spin_unlock_irqrestore(l);
  ExpectOneViolation("not locked");
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TARGET);
  srpt_spin_lock_irqsave(l);
  srpt_spin_unlock_irqrestore(l);
  srpt_mutex_lock(m);
  srpt_spin_lock_irqsave(l);  // TARGET then CHANNEL: in order
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_spin_unlock_irqrestore(l);
  srpt_mutex_unlock(m);
  srpt_mutex_lock(reinterpret_cast<srpt_mutex*>(l));
  ExpectOneViolation("not a live mutex");
  srpt_spin_lock_irqsave(l);
  srpt_spinlock_destroy(l);
  ExpectOneViolation("spinlock is locked");
  srpt_mutex_destroy(m);
}

TEST_F(FakeLoginTest, TheLoginLockComesBeforeTheTargetLock) {
  srpt_mutex* login = srpt_mutex_create(SRPT_LOCK_LOGIN);
  srpt_mutex* target = srpt_mutex_create(SRPT_LOCK_TARGET);
  srpt_mutex_lock(login);
  srpt_mutex_lock(target);
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_mutex_unlock(target);
  srpt_mutex_unlock(login);
  srpt_mutex_lock(target);
  srpt_mutex_lock(login);
  ExpectOneViolation("class 4 taken while holding class 0");
  srpt_mutex_unlock(login);
  srpt_mutex_unlock(target);
  srpt_mutex_destroy(target);
  srpt_mutex_destroy(login);
}

// A REQ callback waits for the target lock and
// a port's login lock, so destroying a listener (which waits for running
// callbacks) under either would deadlock.
TEST_F(FakeLoginTest, DestroyingAListenerUnderTheTargetOrALoginLockIsAViolation) {
  for (srpt_lock_class cls : {SRPT_LOCK_LOGIN, SRPT_LOCK_TARGET}) {
    SCOPED_TRACE(static_cast<int>(cls));
    srpt_k_listener* l = nullptr;
    ASSERT_EQ(0, srpt_k_rdma_listen(5555, &l));
    srpt_mutex* m = srpt_mutex_create(cls);
    srpt_mutex_lock(m);
    srpt_k_listener_destroy(l);
    ExpectOneViolation(cls == SRPT_LOCK_LOGIN ? "with a login lock held"
                                              : "with the target lock held");
    srpt_mutex_unlock(m);
    srpt_mutex_destroy(m);
  }
}

// --- work and waits -----------------------------------------------------------------------------

TEST_F(FakeLoginTest, WorkRunsOnlyWhenRunInOrderAndOnce) {
  g_runs = 0;
  g_order.clear();
  srpt_k_work* a = nullptr;
  srpt_k_work* b = nullptr;
  ASSERT_EQ(0, srpt_k_work_create(Count, reinterpret_cast<void*>(1), &a));
  ASSERT_EQ(0, srpt_k_work_create(Count, reinterpret_cast<void*>(2), &b));
  srpt_k_work_queue(b);
  srpt_k_work_queue(a);
  srpt_k_work_queue(b);  // pending: no-op
  EXPECT_EQ(2u, fake::queued_works());
  EXPECT_EQ(0, g_runs);
  EXPECT_EQ(2u, fake::run_works());
  EXPECT_EQ((std::vector<int>{2, 1}), g_order);
  srpt_k_work_queue(a);
  srpt_k_work_destroy(a);
  ExpectOneViolation("still queued");
  EXPECT_EQ(0u, fake::queued_works());
  srpt_k_work_destroy(b);
}

TEST_F(FakeLoginTest, AWorkMayDestroyItself) {
  g_runs = 0;
  srpt_k_work* w = nullptr;
  ASSERT_EQ(0, srpt_k_work_create(DestroySelf, &w, &w));
  srpt_k_work_queue(w);
  EXPECT_EQ(1u, fake::run_works());
  EXPECT_EQ(1, g_runs);
  EXPECT_EQ(0u, fake::live_works());
}

TEST_F(FakeLoginTest, WaitRunsPendingWorkUntilComplete) {
  srpt_k_completion* c = nullptr;
  ASSERT_EQ(0, srpt_k_completion_create(&c));
  srpt_k_work* w = nullptr;
  ASSERT_EQ(0, srpt_k_work_create([](void* arg) { srpt_k_complete(static_cast<srpt_k_completion*>(arg)); },
                                  c, &w));
  srpt_k_work_queue(w);
  EXPECT_EQ(0, srpt_k_wait(c, ~0u));
  EXPECT_EQ(0, srpt_k_wait(c, ~0u)) << "complete_all: every later wait returns";
  srpt_k_work_destroy(w);
  srpt_k_completion_destroy(c);
}

TEST_F(FakeLoginTest, AWaitThatCouldNeverEndIsAViolation) {
  srpt_k_completion* c = nullptr;
  ASSERT_EQ(0, srpt_k_completion_create(&c));
  EXPECT_EQ(-SRPT_ETIMEDOUT, srpt_k_wait(c, 100));
  EXPECT_TRUE(fake::take_violations().empty()) << "a bounded wait just times out";
  EXPECT_EQ(-SRPT_ETIMEDOUT, srpt_k_wait(c, ~0u));
  ExpectOneViolation("the kernel would hang");
  srpt_k_completion_destroy(c);
}

// --- threads ---------------------------------------------------------------------------------------

TEST_F(FakeLoginTest, ASpawnedThreadBlocksOnAHeldMutexUntilItIsFree) {
  srpt_mutex* m = srpt_mutex_create(SRPT_LOCK_TEST);
  std::vector<int> order;
  srpt_mutex_lock(m);
  const int t = fake::spawn_thread([&] {
    order.push_back(1);
    srpt_mutex_lock(m);
    order.push_back(3);
    srpt_mutex_unlock(m);
  });
  order.push_back(2);
  EXPECT_FALSE(fake::thread_finished(t));
  EXPECT_EQ(1u, fake::blocked_threads());
  EXPECT_EQ(1u, fake::run_threads()) << "still held: it stays blocked";
  srpt_mutex_unlock(m);
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::thread_finished(t));
  EXPECT_EQ((std::vector<int>{1, 2, 3}), order);
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_mutex_destroy(m);
}

TEST_F(FakeLoginTest, WaitingForAMutexABlockedThreadHoldsIsADeadlock) {
  srpt_mutex* a = srpt_mutex_create(SRPT_LOCK_TEST);
  srpt_mutex* b = srpt_mutex_create(SRPT_LOCK_PORT);  // b, then a: in order
  srpt_mutex_lock(a);
  fake::spawn_thread([&] {
    srpt_mutex_lock(b);
    srpt_mutex_lock(a);  // blocks: the test holds it
    srpt_mutex_unlock(a);
    srpt_mutex_unlock(b);
  });
  srpt_mutex_lock(b);  // the test cannot block: it would wait forever
  ExpectOneViolation("deadlock");
  srpt_mutex_unlock(b);  // the refused lock's unlock is swallowed
  EXPECT_TRUE(fake::mutex_held(b));
  srpt_mutex_unlock(a);
  EXPECT_EQ(0u, fake::run_threads());
  EXPECT_TRUE(fake::take_violations().empty());
  srpt_mutex_destroy(b);
  srpt_mutex_destroy(a);
}

TEST_F(FakeLoginTest, AWorkNeedingTheWaitersMutexIsADeadlock) {
  static srpt_mutex* m = nullptr;
  m = srpt_mutex_create(SRPT_LOCK_TEST);
  srpt_k_completion* c = nullptr;
  ASSERT_EQ(0, srpt_k_completion_create(&c));
  srpt_k_work* w = nullptr;
  ASSERT_EQ(0, srpt_k_work_create(
                   [](void* arg) {
                     srpt_mutex_lock(m);
                     srpt_mutex_unlock(m);
                     srpt_k_complete(static_cast<srpt_k_completion*>(arg));
                   },
                   c, &w));
  srpt_k_work_queue(w);
  srpt_mutex_lock(m);
  EXPECT_EQ(0, srpt_k_wait(c, ~0u));
  ExpectOneViolation("deadlock");
  srpt_mutex_unlock(m);
  EXPECT_FALSE(fake::mutex_held(m));
  srpt_k_work_destroy(w);
  srpt_k_completion_destroy(c);
  srpt_mutex_destroy(m);
}

// --- queues --------------------------------------------------------------------------------------------

TEST_F(FakeLoginTest, QueueMisuseIsCaught) {
  FakeDevice dev("d", 1);
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  srpt_qp_params p{2, 2, nullptr, 0};
  srpt_k_qp* qp = nullptr;
  ASSERT_EQ(0, srpt_k_qp_create(SRPT_CM_RDMA, id, dev.kdev(), 1, &p, &qp));
  srpt_k_ring* recv = nullptr;
  srpt_k_ring* send = nullptr;
  ASSERT_EQ(0, srpt_k_ring_create(dev.kdev(), 2, 64, 0, SRPT_RING_RECV, &recv));
  ASSERT_EQ(0, srpt_k_ring_create(dev.kdev(), 2, 64, 0, SRPT_RING_SEND, &send));
  EXPECT_EQ(nullptr, srpt_k_ring_buf(recv, 2));
  ExpectOneViolation("ring of 2");
  EXPECT_EQ(0, srpt_k_post_recv(qp, recv, 1));
  EXPECT_NE(0, srpt_k_post_recv(qp, recv, 1));
  ExpectOneViolation("already posted");
  EXPECT_NE(0, srpt_k_post_recv(qp, send, 0));
  ExpectOneViolation("not a receive buffer");
  EXPECT_NE(0, srpt_k_post_send(qp, send, 0, 0));
  ExpectOneViolation("len 0");
  EXPECT_NE(0, srpt_k_post_send(qp, send, 0, 65));
  ExpectOneViolation("len 65");
  srpt_k_ring_buf(send, 0)[0] = 0x42;
  EXPECT_EQ(0, srpt_k_post_send(qp, send, 0, 1));
  srpt_k_ring_buf(send, 0)[0] = 0x43;
  ASSERT_EQ(1u, qp->sends.size());
  EXPECT_EQ(Bytes{0x42}, qp->sends[0].bytes) << "the bytes at post time";
  EXPECT_NE(0, srpt_k_post_send(qp, send, 0, 1));
  ExpectOneViolation("has not completed");
  srpt_k_ring_destroy(recv);
  ExpectOneViolation("still posted");
  fake::cm_destroy_by_caller(id);
  EXPECT_EQ(0, srpt_k_cm_accept(SRPT_CM_RDMA, fake::new_cm_id(SRPT_CM_RDMA), qp, "x", 1));
  {
    const std::vector<std::string> v = fake::take_violations();
    ASSERT_EQ(2u, v.size());
    EXPECT_NE(std::string::npos, v[0].find("not made on this id")) << v[0];
    EXPECT_NE(std::string::npos, v[1].find("outside the connect request callback")) << v[1];
  }
  fake::cm_destroy_by_caller(fake::cm_ids().back());
  // Tidy up without a channel to deliver completions to.
  qp->recvs.clear();
  qp->sends.clear();
  recv->posted.assign(2, false);
  send->posted.assign(2, false);
  srpt_k_qp_destroy(qp);
  ExpectOneViolation("after its cm_id was destroyed");
  srpt_k_ring_destroy(recv);
  srpt_k_ring_destroy(send);
  fake::deliver_recv(qp, Bytes{1});
  ExpectOneViolation("not a live QP");
}

// --- sessions and commands ------------------------------------------------------------------------------

namespace {

class FakeSessionTest : public LoginTest {};

}  // namespace

TEST_F(FakeSessionTest, ADrainThatCouldNeverEndIsAViolation) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  srpt_k_cmd* cmd = fake::submissions().back().cmd;
  EXPECT_EQ(0, srpt_core_cmd_queue_status(fake::cmd_ctx(cmd)));
  // Its response is posted on a QP that is not in error: nothing will
  // complete it while the drain waits.
  srpt_k_session* sess = fake::sessions()[0];
  srpt_k_session_drain(sess);
  ExpectOneViolation("the drain would wait forever");
  fake::complete_send(Qp(o));
  EXPECT_EQ(0, sess->active_cmds);
  // A stopped session refuses new commands (-ESHUTDOWN, nothing reaches
  // the target core); the channel answers them BUSY itself.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  ASSERT_EQ(1u, Posted(o).size());
  EXPECT_EQ(0x08, DecodeRsp(Posted(o).front().bytes).status);
  fake::complete_send(Qp(o));
}

TEST_F(FakeSessionTest, TheDrainFinishesCommandsStillWithTheTargetCore) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  // The backend answered it during the release's drain; the response went
  // to a QP in the error state and was flushed; then it was released.
  EXPECT_EQ(1u, fake::count_calls("backend_completes"));
  EXPECT_EQ(1u, fake::count_calls("flush_send"));
  EXPECT_LT(fake::find_call("backend_completes"), fake::find_call("srpt_core_cmd_release"));
  EXPECT_LT(fake::find_call("srpt_core_cmd_release"), fake::find_call("srpt_k_session_remove"));
  EXPECT_EQ(0u, fake::active_cmds());
  ExpectReleasedByChannel(o);
}

TEST_F(FakeSessionTest, CommandMisuseIsCaught) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  srpt_k_cmd* cmd = fake::submissions().back().cmd;
  EXPECT_EQ(0, srpt_core_cmd_queue_status(fake::cmd_ctx(cmd)));
  srpt_k_cmd_free(cmd);
  ExpectOneViolation("still posted");
  srpt_k_cmd_free(cmd);
  ExpectOneViolation("does not hold this command");
  EXPECT_NE(0, srpt_k_cmd_rdma_read(cmd, 0, 1));
  ExpectOneViolation("does not hold this command");
  // The slot went back early; let its send complete without a second free.
  fake::close_session(fake::sessions()[0]);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  fake::complete_send(Qp(o));
  const std::vector<std::string> v = fake::take_violations();
  ASSERT_EQ(1u, v.size());
  EXPECT_NE(std::string::npos, v[0].find("does not hold this command")) << v[0];
}
