// SPDX-License-Identifier: GPL-2.0
/* Memory for the core: include/srpt/abi/alloc.h. */
#include <linux/slab.h>

#include <srpt/abi/alloc.h>

void *srpt_kzalloc(size_t size, enum srpt_alloc_ctx ctx)
{
	if (!size)
		return NULL;
	return kzalloc(size, ctx == SRPT_ALLOC_ATOMIC ? GFP_ATOMIC : GFP_KERNEL);
}

void srpt_kfree(const void *ptr)
{
	kfree(ptr);
}
