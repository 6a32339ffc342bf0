// SPDX-License-Identifier: GPL-2.0
#include "seq.h"

#include <cstdarg>
#include <cstdio>

#include <srpt/abi/fabric.h>

#include "log.h"
#include "violation.h"

extern "C" void srpt_k_seq_printf(srpt_k_seq* seq, const char* fmt, ...) noexcept {
  if (!fake::printk_compatible_format(fmt))
    fake::record_violation("seq_printf format not printk-compatible: \"%s\"", fmt);
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  const int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n > 0) seq->text.append(buf, static_cast<size_t>(n) < sizeof(buf) ? n : sizeof(buf) - 1);
}
