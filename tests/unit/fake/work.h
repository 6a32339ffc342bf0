// SPDX-License-Identifier: GPL-2.0
// The fake work queue (include/srpt/abi/session.h: srpt_k_work_*).
//
// srpt_k_work_queue() only records the item (FIFO; a no-op while it is
// pending). srpt_k_work_queue_after() records it with its time on the fake
// clock (completion.h: advance_ns); it joins the queue when a run of works
// finds that time passed, and srpt_k_work_flush() does not wait for it. Nothing runs until the test runs queued works (run_works), or a
// fake wait does (loop.h: srpt_k_wait, the session drain). Each
// item runs as another kernel thread (thread.h) and may destroy itself.
//
// srpt_k_work_flush() runs every queued item and lets work functions still
// running on spawned threads (thread.h) return before it does.
//
// Violations: destroying a pending item (it would run after being freed),
// queueing or destroying a dead one; a flush from a work item, or one that
// would never end (a running work function that cannot go on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <srpt/abi/session.h>

struct srpt_k_work {
  void (*fn)(void* arg);
  void* arg;
  bool pending = false;
  bool running = false;
  int runs = 0;
  uint64_t due_ns = 0;  // srpt_k_work_queue_after: when it may run
};

namespace fake {

size_t live_works();
size_t queued_works();
// Pending items still waiting for their time (srpt_k_work_queue_after).
size_t later_works();
// Work functions that have started and not yet returned (one may have
// destroyed its own item and still be running, as a channel's release work
// does).
size_t running_works();
// Runs the oldest queued item; false when none is queued.
bool run_one_work();
// this_thread: the work runs as the current thread (a spawned one, which
// may block), not as a kernel worker that runs to completion.
bool run_one_work_on(bool this_thread);
// Runs queued items until none is left (items queued meanwhile included);
// returns how many ran.
size_t run_works();
// Queued works, run by the current (spawned) thread: a work that waits for
// another thread blocks it instead of failing.
size_t run_works_on_this_thread();

std::vector<std::string> work_leaks();
void reset_work();

}  // namespace fake
