// SPDX-License-Identifier: GPL-2.0
// What the other kernel threads would do while one thread waits: run queued
// work items (work.h) and deliver the flush completions that QPs in the error
// state owe (queue.h). The fake's blocking calls (srpt_k_wait, the session
// drain) run these until what they wait for has happened.
#pragma once

#include <cstddef>

namespace fake {

// One queued work item, else one flush completion; false when neither is
// pending.
bool run_one_pending();
// Until nothing is pending; returns how many steps ran.
size_t run_all_pending();

}  // namespace fake
