// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "violation.h"

namespace fake {
namespace {

std::vector<LogLine>& lines() {
  static std::vector<LogLine> v;
  return v;
}

bool verbose() {
  const char* v = getenv("SRPT_UNIT_VERBOSE");
  return v != nullptr && *v != '\0';
}

std::string vformat(const char* fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int n = vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n < 0) return std::string("<unformattable: ") + fmt + ">";
  std::string out(static_cast<size_t>(n), '\0');
  vsnprintf(&out[0], out.size() + 1, fmt, ap);
  return out;
}

void vlog(srpt_log_level level, const char* fmt, va_list ap) {
  if (!printk_compatible_format(fmt))
    record_violation("log format not printk-compatible: \"%s\"", fmt);
  if (level < SRPT_LOG_ERR || level > SRPT_LOG_DEBUG)
    record_violation("log level %d out of range", static_cast<int>(level));
  LogLine line{level, vformat(fmt, ap)};
  if (verbose()) fprintf(stderr, "srpt log <%d> %s", level, line.text.c_str());
  lines().push_back(std::move(line));
}

}  // namespace

const std::vector<LogLine>& log_lines() { return lines(); }

size_t count_log_lines(srpt_log_level level, const std::string& needle) {
  size_t n = 0;
  for (const LogLine& l : lines())
    if (l.level == level && l.text.find(needle) != std::string::npos) n++;
  return n;
}

bool logged(srpt_log_level level, const std::string& needle) {
  return count_log_lines(level, needle) > 0;
}

std::string log_dump() {
  std::string out;
  for (const LogLine& l : lines()) {
    out += "  <" + std::to_string(static_cast<int>(l.level)) + "> " + l.text;
    if (out.empty() || out.back() != '\n') out += '\n';
  }
  return out.empty() ? "  (log empty)\n" : out;
}

void reset_log() { lines().clear(); }

bool printk_compatible_format(const char* fmt) {
  for (const char* p = fmt; *p; p++) {
    if (*p != '%') continue;
    p++;
    if (*p == '%') continue;
    while (*p && strchr("-+ #0", *p)) p++;
    if (*p == '*') {
      p++;
    } else {
      while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == '.') {
      p++;
      if (*p == '*') {
        p++;
      } else {
        while (*p >= '0' && *p <= '9') p++;
      }
    }
    bool sized = false;
    if (p[0] == 'h' && p[1] == 'h') { p += 2; sized = true; }
    else if (p[0] == 'l' && p[1] == 'l') { p += 2; sized = true; }
    else if (*p == 'h' || *p == 'l' || *p == 'z') { p++; sized = true; }
    if (*p == '\0') return false;
    if (strchr("diuxX", *p)) continue;
    if (!sized && (*p == 'c' || *p == 's')) continue;
    return false;  // %p (printk's pointer extensions), %n, floats, ...
  }
  return true;
}

}  // namespace fake

extern "C" void srpt_log(srpt_log_level level, const char* fmt, ...) noexcept {
  va_list ap;
  va_start(ap, fmt);
  fake::vlog(level, fmt, ap);
  va_end(ap);
}

extern "C" int srpt_snprintf(char* buf, size_t size, const char* fmt,
                             ...) noexcept {
  if (!fake::printk_compatible_format(fmt))
    fake::record_violation("snprintf format not printk-compatible: \"%s\"", fmt);
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}
