// SPDX-License-Identifier: GPL-2.0
// Contract violations the fake detects in the core's use of the C ABI (a free
// of an unknown pointer, a double lock, a format printk would not accept...).
//
// The fake never fails a test itself: it records what it saw, a fake
// self-test may consume what it provoked, and the CoreTest fixture fails any
// test that ends with violations left over.
#pragma once

#include <string>
#include <vector>

namespace fake {

__attribute__((format(printf, 1, 2))) void record_violation(const char* fmt, ...);

// Returns and forgets the violations recorded so far.
std::vector<std::string> take_violations();

void reset_violations();

}  // namespace fake
