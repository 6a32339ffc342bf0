// SPDX-License-Identifier: GPL-2.0
#include "fake.h"

namespace fake {

void reset() {
  reset_fault();
  reset_alloc();
  reset_lock();
  reset_log();
  reset_bugs();
  reset_violations();
}

}  // namespace fake
