// SPDX-License-Identifier: GPL-2.0
// The host's stand-in for the kernel shim: every C ABI function the core
// calls (include/srpt/abi/*.h), instrumented for tests. Deterministic: the
// kernel's other threads (CM callbacks, CQ polling, the work queue) only run
// when a test or a fake wait runs them (thread.h, loop.h).
#pragma once

#include <string>
#include <vector>

#include "alloc.h"
#include "bug.h"
#include "cm.h"
#include "cmd.h"
#include "dm.h"
#include "completion.h"
#include "fault.h"
#include "lock.h"
#include "log.h"
#include "port.h"
#include "loop.h"
#include "queue.h"
#include "seq.h"
#include "session.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"
#include "work.h"

namespace fake {

// Kernel objects of the new ABI still alive, cm_ids nobody destroyed,
// queued work never run, spawned threads still blocked: one line each.
std::vector<std::string> leaks();

// Back to a clean state: no failure armed, counters zero, nothing recorded.
void reset();

}  // namespace fake
