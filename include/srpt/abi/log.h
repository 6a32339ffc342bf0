/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log and assertion reports for the core. Messages are prefixed with
 * the module name by the shim. The core formats with the kernel's printf
 * dialect (the shim hands the format to vprintk), so only the conversions
 * both printk and the host fake understand are used: %s %d %u %x %llx %llu
 * %lld %zu %c %%.
 */
#ifndef SRPT_ABI_LOG_H
#define SRPT_ABI_LOG_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

enum srpt_log_level {
	SRPT_LOG_ERR = 3,
	SRPT_LOG_WARNING = 4,
	SRPT_LOG_NOTICE = 5,
	SRPT_LOG_INFO = 6,
	SRPT_LOG_DEBUG = 7,
};

SRPT_PRINTF(2, 3)
void srpt_log(enum srpt_log_level level, const char *fmt, ...) SRPT_NOEXCEPT;

/*
 * Lines a remote peer can trigger at will go through the core's per-initiator
 * rate limit first (include/srpt/core/log_limit.h); the shim only prints.
 */

/*
 * A broken invariant: the kernel prints a WARNING with a backtrace (which
 * fails every guest test) and the core carries on along its error path.
 */
void srpt_report_bug(const char *file, int line, const char *expr) SRPT_NOEXCEPT;

/* A pure virtual function was called: the object model is corrupted. */
void srpt_trap_pure_virtual(void) SRPT_NOEXCEPT;

/* Bounded formatting into a buffer; always NUL-terminates when size > 0. */
SRPT_PRINTF(3, 4)
int srpt_snprintf(char *buf, size_t size, const char *fmt, ...) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_LOG_H */
