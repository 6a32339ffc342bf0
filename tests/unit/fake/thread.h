// SPDX-License-Identifier: GPL-2.0
// Kernel threads, as the fake emulates them: deterministically, one at a time.
//
// The core is called from several kernel threads at once (CM callbacks, the
// CQ poll work, the module's work queue, configfs writers). The fake runs all
// of them on the test's thread, one after the other, and only needs to know
// WHICH thread is running, for the lock checks (lock.h: which locks this
// thread holds, whether it may sleep) and for waits that would never end.
//
// Two kinds of "other thread":
//   - OtherThread: a scope in which the test's thread plays another kernel
//     thread that runs to completion without blocking: a work item run from
//     srpt_k_wait(), a CQ completion delivered by the test. Taking a mutex
//     that some other thread holds would block it forever (the holder waits
//     for it, or is a test that never resumes it): a violation.
//   - spawn_thread(): a real thread that can block on a fake mutex, for a
//     test that needs two kernel threads interleaved at a mutex (a configfs
//     write racing a login). It runs only while the test's thread waits for
//     it (a baton), so everything stays deterministic: spawn_thread() runs
//     it until it finishes or blocks; run_threads() resumes blocked threads
//     whose condition holds.
#pragma once

#include <cstddef>
#include <functional>

namespace fake {

// The kernel thread running now: 0 for the test itself.
int current_thread();
// False in an OtherThread scope and in the test's own thread.
bool current_thread_can_block();
// True on the test's own OS thread (OtherThread scopes included), the only
// one that may resume spawned threads (run_threads).
bool on_test_os_thread();

class OtherThread {
 public:
  OtherThread();
  ~OtherThread();
  OtherThread(const OtherThread&) = delete;
  OtherThread& operator=(const OtherThread&) = delete;

 private:
  int saved_id_;
  bool saved_can_block_;
};

// Starts `fn` as a new kernel thread and runs it until it finishes or blocks.
// Returns its id. Only the test's thread spawns.
int spawn_thread(std::function<void()> fn);
// Resumes blocked threads whose wait condition holds, until none can make
// progress. Returns how many are still blocked.
size_t run_threads();
bool thread_finished(int id);
size_t blocked_threads();

// Called by a spawned thread: gives the baton back to the test until `ready`
// holds. Returns false (and does not wait) when the current thread cannot
// block.
bool block_until(const std::function<bool()>& ready);
// Called by a spawned thread: it is preempted and gives the baton back to
// the test while staying runnable; the next run_threads() (or anything that
// runs other threads) resumes it. Models a kernel thread that is still in
// the middle of its function on another CPU. False (and no pause) when the
// current thread cannot block.
bool preempt();

// Abandons threads that are still blocked (they stay parked forever).
void reset_threads();

}  // namespace fake
