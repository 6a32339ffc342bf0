// SPDX-License-Identifier: GPL-2.0
#include "fake.h"

namespace fake {

std::vector<std::string> leaks() {
  std::vector<std::string> out;
  for (auto part : {cm_leaks(), queue_leaks(), cmd_leaks(), session_leaks(),
                    work_leaks(), completion_leaks(), dm_leaks()})
    out.insert(out.end(), part.begin(), part.end());
  if (live_spinlocks() != 0)
    out.push_back(std::to_string(live_spinlocks()) +
                  " spinlocks were never destroyed");
  if (blocked_threads() != 0)
    out.push_back(std::to_string(blocked_threads()) +
                  " spawned threads are still blocked");
  return out;
}

void reset() {
  reset_threads();
  reset_fault();
  reset_alloc();
  reset_lock();
  reset_log();
  reset_bugs();
  reset_violations();
  reset_trace();
  reset_cm();
  reset_queue();
  reset_cmd();
  reset_session();
  reset_work();
  reset_completion();
  reset_port();
  reset_dm();
}

}  // namespace fake
