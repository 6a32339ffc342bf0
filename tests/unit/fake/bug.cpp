// SPDX-License-Identifier: GPL-2.0
#include "bug.h"

#include <cstdio>
#include <cstdlib>

#include <srpt/abi/log.h>

namespace fake {
namespace {

std::vector<BugReport>& reports() {
  static std::vector<BugReport> v;
  return v;
}

}  // namespace

std::string BugReport::str() const {
  return file + ":" + std::to_string(line) + ": " + expr;
}

std::vector<BugReport> take_bug_reports() {
  std::vector<BugReport> out;
  out.swap(reports());
  return out;
}

size_t bug_report_count() { return reports().size(); }

void reset_bugs() { reports().clear(); }

}  // namespace fake

extern "C" void srpt_report_bug(const char* file, int line,
                                const char* expr) noexcept {
  fake::reports().push_back(
      fake::BugReport{file ? file : "?", line, expr ? expr : "?"});
}

extern "C" void srpt_trap_pure_virtual(void) noexcept {
  fprintf(stderr, "srpt_trap_pure_virtual: pure virtual function called\n");
  abort();
}
