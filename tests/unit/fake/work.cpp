// SPDX-License-Identifier: GPL-2.0
#include "work.h"

#include <algorithm>
#include <deque>

#include "completion.h"
#include "fault.h"
#include "lock.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `live` holds the items made and not destroyed; `queue` the
// pending ones that may run, oldest first, each once; `later` the pending
// ones waiting for their time (srpt_k_work_queue_after), each once and
// never also in `queue`.
struct WorkState {
  std::vector<srpt_k_work*> live;
  std::deque<srpt_k_work*> queue;
  std::vector<srpt_k_work*> later;
  size_t running = 0;  // functions entered and not yet returned
};

WorkState& state() {
  static WorkState* s = new WorkState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

// Work functions the current OS thread is inside of.
thread_local int tls_in_work = 0;

bool is_live(const srpt_k_work* w) {
  const auto& v = state().live;
  return std::find(v.begin(), v.end(), w) != v.end();
}

// A live item, or a violation naming the call `op`.
bool check_live(const srpt_k_work* w, const char* op) {
  if (is_live(w)) return true;
  record_violation("%s(%p): not a live work item", op, static_cast<const void*>(w));
  return false;
}

// A pending item is no longer: out of the queue, or out of `later`.
void unqueue(srpt_k_work* w) {
  WorkState& s = state();
  auto q = std::find(s.queue.begin(), s.queue.end(), w);
  if (q != s.queue.end()) s.queue.erase(q);
  auto l = std::find(s.later.begin(), s.later.end(), w);
  if (l != s.later.end()) s.later.erase(l);
  w->pending = false;
}

// Items whose time has come join the queue, earliest first.
void queue_due() {
  WorkState& s = state();
  std::stable_sort(s.later.begin(), s.later.end(),
                   [](const srpt_k_work* a, const srpt_k_work* b) { return a->due_ns < b->due_ns; });
  auto it = s.later.begin();
  for (; it != s.later.end() && (*it)->due_ns <= now_ns(); ++it) s.queue.push_back(*it);
  s.later.erase(s.later.begin(), it);
}

}  // namespace

size_t live_works() { return state().live.size(); }
size_t queued_works() { return state().queue.size(); }
size_t later_works() { return state().later.size(); }
size_t running_works() { return state().running; }

bool run_one_work() { return run_one_work_on(false); }

bool run_one_work_on(bool this_thread) {
  WorkState& s = state();
  queue_due();
  if (s.queue.empty()) return false;
  srpt_k_work* w = s.queue.front();
  s.queue.pop_front();
  w->pending = false;
  w->running = true;
  w->runs++;
  trace("run_work", w);
  s.running++;
  tls_in_work++;
  if (this_thread) {
    w->fn(w->arg);  // may destroy w
  } else {
    OtherThread worker;
    w->fn(w->arg);  // may destroy w
  }
  tls_in_work--;
  s.running--;
  if (is_live(w)) w->running = false;
  return true;
}

size_t run_works_on_this_thread() {
  size_t n = 0;
  while (run_one_work_on(true)) n++;
  return n;
}

size_t run_works() {
  size_t n = 0;
  while (run_one_work()) n++;
  return n;
}

std::vector<std::string> work_leaks() {
  std::vector<std::string> out;
  for (size_t i = 0; i < state().live.size(); i++)
    out.push_back("work item was never destroyed");
  if (!state().queue.empty())
    out.push_back(std::to_string(state().queue.size()) +
                  " work items are still queued, never run");
  if (!state().later.empty())
    out.push_back(std::to_string(state().later.size()) +
                  " work items are still waiting for their time, never run");
  return out;
}

void reset_work() {
  WorkState& s = state();
  for (srpt_k_work* w : s.live) graveyard().push_back(w);
  s = WorkState{};
}

}  // namespace fake

extern "C" int srpt_k_work_create(void (*fn)(void* arg), void* arg,
                                  srpt_k_work** out) noexcept {
  fake::might_sleep("srpt_k_work_create");
  fake::trace("srpt_k_work_create", arg);
  if (int err = fake::creation_error(fake::Call::WorkCreate)) return err;
  srpt_k_work* w = new srpt_k_work{fn, arg};
  fake::state().live.push_back(w);
  *out = w;
  return 0;
}

extern "C" void srpt_k_work_queue(srpt_k_work* w) noexcept {
  fake::trace("srpt_k_work_queue", w);
  if (!fake::check_live(w, "srpt_k_work_queue")) return;
  if (w->pending) return;
  w->pending = true;
  fake::state().queue.push_back(w);
}

extern "C" void srpt_k_work_queue_after(srpt_k_work* w, uint32_t ms) noexcept {
  fake::trace("srpt_k_work_queue_after", w);
  if (!fake::check_live(w, "srpt_k_work_queue_after")) return;
  if (w->pending) return;
  w->pending = true;
  w->due_ns = fake::now_ns() + uint64_t{ms} * 1000000u;
  fake::state().later.push_back(w);
}

extern "C" void srpt_k_work_cancel(srpt_k_work* w) noexcept {
  fake::might_sleep("srpt_k_work_cancel");
  fake::trace("srpt_k_work_cancel", w);
  if (!fake::check_live(w, "srpt_k_work_cancel")) return;
  if (w->pending) fake::unqueue(w);
  if (!w->running) return;
  if (fake::tls_in_work != 0) {
    fake::record_violation("srpt_k_work_cancel from a work item: it may wait for itself");
    return;
  }
  // Running on another thread: wait for it to return.
  if (fake::current_thread_can_block() &&
      fake::block_until([w] { return !fake::is_live(w) || !w->running; }))
    return;
  fake::record_violation("srpt_k_work_cancel: the work function never returns; "
                         "the kernel would hang");
}

extern "C" void srpt_k_work_destroy(srpt_k_work* w) noexcept {
  if (w == nullptr) return;
  fake::trace("srpt_k_work_destroy", w);
  if (!fake::check_live(w, "srpt_k_work_destroy")) return;
  fake::WorkState& s = fake::state();
  if (w->pending) {
    fake::record_violation("srpt_k_work_destroy: the item is still queued");
    fake::unqueue(w);
  }
  s.live.erase(std::find(s.live.begin(), s.live.end(), w));
  delete w;
}

extern "C" void srpt_k_work_flush(void) noexcept {
  fake::might_sleep("srpt_k_work_flush");
  fake::trace("srpt_k_work_flush", nullptr);
  fake::WorkState& s = fake::state();
  if (fake::tls_in_work != 0) {
    fake::record_violation("srpt_k_work_flush from a work item: it would wait for itself");
    return;
  }
  for (;;) {
    if (fake::run_one_work()) continue;
    if (s.running == 0) return;
    // A work function is still running on another thread: wait for it.
    const size_t before = s.running;
    if (fake::current_thread_can_block()) {
      if (fake::block_until([&s, before] { return s.running < before; })) continue;
    } else if (fake::on_test_os_thread()) {
      fake::run_threads();
      if (s.running < before) continue;
    }
    fake::record_violation("srpt_k_work_flush: %zu work functions never return; "
                           "the kernel would hang",
                           s.running);
    return;
  }
}
