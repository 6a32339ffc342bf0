// SPDX-License-Identifier: GPL-2.0
// The fake srpt_report_bug() (a kernel WARNING) and srpt_trap_pure_virtual()
// (a kernel BUG). Bug reports are recorded; a test that provokes one on
// purpose takes it, and the CoreTest fixture fails a test that ends with any
// report left over. A pure virtual call aborts the process, as BUG() stops the
// kernel thread: nothing sensible can follow it.
#pragma once

#include <string>
#include <vector>

namespace fake {

struct BugReport {
  std::string file;
  int line;
  std::string expr;

  std::string str() const;  // "file:line: expr"
};

// Returns and forgets the reports recorded so far.
std::vector<BugReport> take_bug_reports();
size_t bug_report_count();

void reset_bugs();

}  // namespace fake
