// SPDX-License-Identifier: GPL-2.0
#include "violation.h"

#include <cstdarg>
#include <cstdio>
#include <utility>

namespace fake {
namespace {

std::vector<std::string>& violations() {
  static std::vector<std::string> v;
  return v;
}

}  // namespace

void record_violation(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  violations().emplace_back(buf);
}

std::vector<std::string> take_violations() {
  std::vector<std::string> out;
  out.swap(violations());
  return out;
}

void reset_violations() { violations().clear(); }

}  // namespace fake
