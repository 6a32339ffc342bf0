// SPDX-License-Identifier: GPL-2.0
// Allocation failure injection.
//
// Everything that allocates in the kernel draws from one numbered sequence of
// allocation attempts: srpt_kzalloc() (size > 0) and srpt_mutex_create() (the
// shim kzallocs the mutex). Arming numbers the attempts from 0 again, so
// "fail attempt N" means the (N+1)th allocation the code under test makes
// from now on.
#pragma once

#include <cstddef>

namespace fake {

// Attempt n (0 = the next one) fails; the ones before and after succeed.
void fail_nth_allocation(size_t n);
// Attempt n and every later one fail.
void fail_allocations_from(size_t n);
// No further failures; the injected-failure count is kept until re-armed.
void disarm_allocation_failures();

// Failures injected since the last arm (or reset).
size_t injected_failure_count();
// Attempts made since the last arm (or reset), failed ones included.
size_t allocation_attempts();

// For the fake's allocators: counts one attempt and says whether it fails.
bool next_allocation_fails();

void reset_fault();

}  // namespace fake
