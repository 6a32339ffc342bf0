// SPDX-License-Identifier: GPL-2.0
// The threaded tests' self-test switch. With SRPT_THREADS_BREAK=<mode>, the
// test named for that mode breaks the very rule it checks (the harness's own
// side of it, never the core's), and ThreadSanitizer must report it:
// run-selftest.sh runs each mode and fails when TSan stays silent. That is
// how these tests prove they can fail.
#pragma once

#include <cstdlib>
#include <cstring>

inline bool break_mode(const char* mode) {
  const char* v = getenv("SRPT_THREADS_BREAK");
  return v != nullptr && strcmp(v, mode) == 0;
}
