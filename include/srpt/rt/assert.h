// SPDX-License-Identifier: GPL-2.0
// Invariant checks. A failed check is reported as a kernel WARNING (which the
// guest tests turn into a failure) and evaluates to true, so that the caller
// takes its error path instead of crashing the machine:
//
//   if (SRPT_CHECK_FAILED(list.empty())) return Error::Busy;
#pragma once

#include <srpt/abi/log.h>

#define SRPT_CHECK_FAILED(cond)                          \
  (__builtin_expect(!(cond), 0)                          \
       ? (srpt_report_bug(__FILE__, __LINE__, #cond), true) \
       : false)

// For checks with no error path: reports and continues.
#define SRPT_ASSERT(cond) ((void)SRPT_CHECK_FAILED(cond))
