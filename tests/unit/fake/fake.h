// SPDX-License-Identifier: GPL-2.0
// The host's stand-in for the kernel shim: every C ABI function the core
// calls (include/srpt/abi/{alloc,lock,log}.h), instrumented for tests.
// Single-threaded: the unit tests never call the core from two threads.
#pragma once

#include "alloc.h"
#include "bug.h"
#include "fault.h"
#include "lock.h"
#include "log.h"
#include "violation.h"

namespace fake {

// Back to a clean state: no failure armed, counters zero, nothing recorded.
void reset();

}  // namespace fake
