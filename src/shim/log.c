// SPDX-License-Identifier: GPL-2.0
/* Kernel log for the core: include/srpt/abi/log.h. */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/printk.h>

#include <srpt/abi/log.h>
#include "shim.h"

static void srpt_vlog(enum srpt_log_level level, const char *fmt,
		      va_list *ap)
{
	struct va_format vaf = { .fmt = fmt, .va = ap };

	switch (level) {
	case SRPT_LOG_ERR:
		pr_err("%pV", &vaf);
		break;
	case SRPT_LOG_WARNING:
		pr_warn("%pV", &vaf);
		break;
	case SRPT_LOG_NOTICE:
		pr_notice("%pV", &vaf);
		break;
	case SRPT_LOG_INFO:
		pr_info("%pV", &vaf);
		break;
	default:
		pr_debug("%pV", &vaf);
		break;
	}
}

void srpt_log(enum srpt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srpt_vlog(level, fmt, &ap);
	va_end(ap);
}

void srpt_report_bug(const char *file, int line, const char *expr)
{
	WARN(1, KBUILD_MODNAME ": check failed at %s:%d: %s\n", file, line,
	     expr);
}

void srpt_trap_pure_virtual(void)
{
	/* The object model is corrupted: stop before using it any further. */
	BUG();
}

int srpt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
