/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory for the core. The caller always states whether the allocation may
 * sleep: C++ has no way to find out which context it runs in, and a sleeping
 * allocation under a spinlock or in a completion handler is a bug the kernel
 * only reports at run time, if at all.
 */
#ifndef SRPT_ABI_ALLOC_H
#define SRPT_ABI_ALLOC_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

enum srpt_alloc_ctx {
	SRPT_ALLOC_SLEEP = 0,	/* process context, may sleep (GFP_KERNEL) */
	SRPT_ALLOC_ATOMIC = 1,	/* any context, never sleeps (GFP_ATOMIC) */
};

/* Zeroed memory, or NULL. Never returns a ZERO_SIZE_PTR for size 0: NULL. */
void *srpt_kzalloc(size_t size, enum srpt_alloc_ctx ctx) SRPT_NOEXCEPT;
/* Accepts NULL. */
void srpt_kfree(const void *ptr) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_ALLOC_H */
