// SPDX-License-Identifier: GPL-2.0
// The fake kernel log (include/srpt/abi/log.h: srpt_log,
// srpt_snprintf). Every line is captured with its level; with
// SRPT_UNIT_VERBOSE set in the environment it is also echoed to stderr.
//
// Formats are checked against what printk and the host's vsnprintf agree on
// (flags, width and precision, and the conversions d i u x X c s %, with the
// lengths hh h l ll z); anything else, %p and %n above all, is a violation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <srpt/abi/log.h>

namespace fake {

struct LogLine {
  srpt_log_level level;
  std::string text;  // as formatted, trailing newline included
};

const std::vector<LogLine>& log_lines();
// Lines at `level` whose text contains `needle`.
size_t count_log_lines(srpt_log_level level, const std::string& needle);
bool logged(srpt_log_level level, const std::string& needle);
// All lines, one per line, for failure messages.
std::string log_dump();

void reset_log();

// True when `fmt` only uses conversions both printk and vsnprintf format alike.
bool printk_compatible_format(const char* fmt);

}  // namespace fake
