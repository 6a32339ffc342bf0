// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for the core (include/srpt/abi/alloc.h) and for the shim's own
 * objects of a channel (QP, receive rings, locks). What goes through this
 * file is counted in ib_srpt/objects (live allocations and their ksize()
 * sum, taken again on free, so the two always balance) and can be made to
 * fail from ib_srpt/fault ("alloc N", or the point a fallible try names).
 *
 * Not every allocation of the module does (issue 13 found the old claim
 * that all did untrue). Outside it, each with its own accounting:
 *  - per device, listener and configfs object: ib_client.c (device, port
 *    array), cm.c (listeners), fabric.c (target port, TPG): a handful per
 *    module lifetime, checked by kmemleak on the debug kernel;
 *  - per command: the command contexts' slab cache "srpt_cmd" (cmd.c,
 *    visible in /proc/slabinfo, destroyed at exit, which reports any object
 *    left) and the RDMA context and scatterlist arrays of commands with many
 *    segments (cmd.c), freed with the command; their failure is the
 *    command's, answered to the target core as -ENOMEM.
 */
#include <linux/slab.h>

#include <srpt/abi/alloc.h>
#include "counters.h"
#include "fault.h"
#include "shim.h"

/* Counts a live allocation (NULL: none); returns it. */
static void *srpt_shim_counted(void *p)
{
	if (p) {
		srpt_count_inc(SRPT_CNT_ALLOCS);
		srpt_count_add(SRPT_CNT_ALLOC_BYTES, ksize(p));
	}
	return p;
}

/* Uncounts a live allocation before it is freed; false for NULL. */
static bool srpt_shim_uncounted(const void *p)
{
	if (!p)
		return false;
	srpt_count_dec(SRPT_CNT_ALLOCS);
	srpt_count_add(SRPT_CNT_ALLOC_BYTES, -(long)ksize(p));
	return true;
}

void *srpt_shim_kmalloc(size_t size, gfp_t gfp)
{
	if (srpt_fault_hit(SRPT_FAULT_ALLOC))
		return NULL;
	return srpt_shim_counted(kmalloc(size, gfp));
}

void *srpt_shim_kmalloc_if_free(size_t size, enum srpt_fault_point point)
{
	if (srpt_fault_hit(point))
		return NULL;
	return srpt_shim_counted(kmalloc(size, (GFP_KERNEL & ~__GFP_RECLAIM) |
					       __GFP_NOWARN));
}

void *srpt_shim_cache_zalloc(struct kmem_cache *cache)
{
	if (srpt_fault_hit(SRPT_FAULT_ALLOC))
		return NULL;
	return srpt_shim_counted(kmem_cache_zalloc(cache, GFP_KERNEL));
}

void srpt_shim_cache_free(struct kmem_cache *cache, void *p)
{
	if (srpt_shim_uncounted(p))
		kmem_cache_free(cache, p);
}

void srpt_shim_kfree(const void *p)
{
	if (srpt_shim_uncounted(p))
		kfree(p);
}

void *srpt_kzalloc(size_t size, enum srpt_alloc_ctx ctx)
{
	if (!size)
		return NULL;
	return srpt_shim_kmalloc(size, (ctx == SRPT_ALLOC_ATOMIC ? GFP_ATOMIC :
				 GFP_KERNEL) | __GFP_ZERO);
}

void srpt_kfree(const void *ptr)
{
	srpt_shim_kfree(ptr);
}
