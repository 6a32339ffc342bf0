// SPDX-License-Identifier: GPL-2.0
// DispatchGate on real threads: the release work
// destroys the QP only after close_and_wait(), and then no dispatch is
// inside or can enter, whichever thread it runs on.
//
// The model of one channel, in the release work's order:
//   - CQ dispatchers: receive/send completions, dispatching in a loop. The
//     QP's drain (ib_drain_qp) waits for them, so they stop at the drain.
//   - the CM dispatcher: RDMA/CM's ESTABLISHED callback, which dispatches
//     the IUs that came before the RTU. Nothing but the cm_id's destroy
//     waits for it, and that comes after the QP's: only the gate keeps it
//     off the QP.
//   - the release work: close_and_wait(), drain, destroy the QP, destroy the
//     cm_id, free the channel.
// A dispatch writes into the QP (its own counter, so dispatchers do not race
// each other); the release frees the QP. Any dispatch not ordered before
// that free is a ThreadSanitizer report. In half of the rounds the CM
// dispatcher is inside the gate, and stays there a while, when the release
// starts: the interleaving of the defect.
//
// SRPT_THREADS_BREAK=gate destroys the QP before close_and_wait(), the
// order of the defect: TSan must report the CM dispatcher's write.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <srpt/core/dispatch_gate.h>

#include "break_mode.h"
#include "kernel.h"

namespace {

constexpr int kCqDispatchers = 2;
constexpr int kRounds = 200;

struct Qp {
  // One slot per dispatcher (the last is the CM's), plain ints: TSan checks
  // each write against the QP's free.
  long posts[kCqDispatchers + 1] = {};
};

struct Round {
  srpt::DispatchGate* gate;
  Qp* qp;
  std::atomic<bool> drained{false};
  std::atomic<long> entered{0};
  std::atomic<bool> cm_inside{false};
};

void dispatch(Round& r, int slot) {
  r.entered++;
  r.qp->posts[slot]++;
}

void cq_dispatcher(Round& r, int slot) {
  while (!r.drained.load()) {
    if (r.gate->enter()) {
      dispatch(r, slot);
      r.gate->leave();
    }
    std::this_thread::yield();
  }
}

void cm_dispatcher(Round& r, bool linger) {
  if (!r.gate->enter()) return;
  r.cm_inside = true;
  if (linger) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  dispatch(r, kCqDispatchers);
  r.gate->leave();
}

TEST(DispatchGateThreadsTest, NoDispatchTouchesTheQpAfterTheReleaseWaited) {
  const bool broken = break_mode("gate");
  for (int round = 0; round < kRounds; round++) {
    srpt::Result<srpt::DispatchGate> made = srpt::DispatchGate::create();
    ASSERT_TRUE(made.ok());
    auto* gate = new srpt::DispatchGate(srpt::move(made.value()));
    Round r;
    r.gate = gate;
    r.qp = new Qp;
    const bool cm_first = round % 2 == 0;

    std::vector<std::thread> cq;
    for (int i = 0; i < kCqDispatchers; i++) cq.emplace_back(cq_dispatcher, std::ref(r), i);
    std::thread cm(cm_dispatcher, std::ref(r), cm_first);
    if (cm_first)
      while (!r.cm_inside.load() && r.entered.load() < 1000) std::this_thread::yield();
    while (r.entered.load() < 10) std::this_thread::yield();

    // The release work.
    long posted = 0;
    if (broken) {
      r.drained = true;
      for (std::thread& t : cq) t.join();
      delete r.qp;
      gate->close_and_wait();
    } else {
      gate->close_and_wait();
      EXPECT_FALSE(gate->enter()) << "a closed gate let a dispatch in";
      EXPECT_EQ(gate->inside(), 0u);
      r.drained = true;
      for (std::thread& t : cq) t.join();
      for (long p : r.qp->posts) posted += p;
      EXPECT_EQ(posted, r.entered.load()) << "round " << round;
      delete r.qp;
    }
    cm.join();
    delete gate;
  }
  EXPECT_EQ(kthreads::bugs(), 0u);
}

}  // namespace
