// SPDX-License-Identifier: GPL-2.0
// The fake completions and clock (include/srpt/abi/session.h: srpt_k_*
// completion, srpt_k_wait, srpt_k_now_ns, srpt_k_sleep_ms).
//
// srpt_k_wait() runs what other threads would run meanwhile (loop.h) until
// the completion is complete, then returns 0; when nothing is left to run and
// it is still not complete it returns -ETIMEDOUT, and for an unbounded wait
// (~0 ms, "forever") that is a violation: the kernel would hang there.
// The clock only moves when the test moves it, or srpt_k_sleep_ms() sleeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <srpt/abi/session.h>

struct srpt_k_completion {
  bool done = false;
  int waits = 0;
};

namespace fake {

size_t live_completions();

uint64_t now_ns();
void set_now_ns(uint64_t ns);
void advance_ns(uint64_t ns);
// Runs `hook` once, right after the next srpt_k_now_ns() has read the clock
// and before it returns: another thread acting between a caller's reading
// of the clock and what the caller does with it.
void after_next_now(std::function<void()> hook);

std::vector<std::string> completion_leaks();
void reset_completion();

}  // namespace fake
