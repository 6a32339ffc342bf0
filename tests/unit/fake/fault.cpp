// SPDX-License-Identifier: GPL-2.0
#include "fault.h"

namespace fake {
namespace {

// Invariant: when `armed`, attempt number `fail_at` fails, and so does every
// later one if `and_later`; `attempts` counts attempts since arming.
struct FaultState {
  bool armed = false;
  bool and_later = false;
  size_t fail_at = 0;
  size_t attempts = 0;
  size_t injected = 0;
};

FaultState& state() {
  static FaultState s;
  return s;
}

void arm(size_t n, bool and_later) {
  FaultState& s = state();
  s.armed = true;
  s.and_later = and_later;
  s.fail_at = n;
  s.attempts = 0;
  s.injected = 0;
}

}  // namespace

void fail_nth_allocation(size_t n) { arm(n, false); }
void fail_allocations_from(size_t n) { arm(n, true); }
void disarm_allocation_failures() { state().armed = false; }

size_t injected_failure_count() { return state().injected; }
size_t allocation_attempts() { return state().attempts; }

bool next_allocation_fails() {
  FaultState& s = state();
  const size_t n = s.attempts++;
  const bool fail = s.armed && (s.and_later ? n >= s.fail_at : n == s.fail_at);
  if (fail) s.injected++;
  return fail;
}

void reset_fault() { state() = FaultState{}; }

}  // namespace fake
