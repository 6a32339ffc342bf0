// SPDX-License-Identifier: GPL-2.0
#include "loop.h"

#include "queue.h"
#include "work.h"

namespace fake {

bool run_one_pending() { return run_one_work() || flush_any(); }

size_t run_all_pending() {
  size_t n = 0;
  while (run_one_pending()) n++;
  return n;
}

}  // namespace fake
