// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for the core (include/srpt/abi/alloc.h) and for the shim's own
 * objects of a channel (QP, receive rings, locks). What goes through this
 * file is counted in ib_srpt/objects (live allocations and the bytes
 * charged for them, taken again on free, so the two always balance) and can
 * be made to fail from ib_srpt/fault ("alloc N", or the point a fallible try
 * names).
 *
 * Not every allocation of the module does. Outside it, each with its own
 * accounting:
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

/*
 * The bytes charged for a live allocation: its kmalloc bucket, the same
 * wherever the allocator put it. ksize() alone is not: for an object KFENCE
 * sampled it is the size asked for, for any other the bucket's, so two
 * allocations of one size could be charged differently and a count taken
 * after a device came back differed from its baseline by 8 bytes (case 44
 * on the debug kernel; case 36 proves this with KFENCE sampling every
 * millisecond). The same on allocation and free, so the sum balances.
 * 0 for NULL: ksize(NULL) and kmalloc_size_roundup(0) are both 0.
 */
static size_t srpt_shim_charge(const void *p)
{
	return kmalloc_size_roundup(ksize(p));
}

/* Counts a live allocation of BYTES (p NULL: none); returns it. */
static void *srpt_shim_counted(void *p, size_t bytes)
{
	if (p) {
		srpt_count_inc(SRPT_CNT_ALLOCS);
		srpt_count_add(SRPT_CNT_ALLOC_BYTES, bytes);
	}
	return p;
}

/* Uncounts a live allocation of BYTES before it is freed; false for NULL. */
static bool srpt_shim_uncounted(const void *p, size_t bytes)
{
	if (!p)
		return false;
	srpt_count_dec(SRPT_CNT_ALLOCS);
	srpt_count_add(SRPT_CNT_ALLOC_BYTES, -(long)bytes);
	return true;
}

static void *srpt_shim_kmalloc_counted(void *p)
{
	return srpt_shim_counted(p, srpt_shim_charge(p));
}

void *srpt_shim_kmalloc(size_t size, gfp_t gfp)
{
	if (srpt_fault_hit(SRPT_FAULT_ALLOC))
		return NULL;
	return srpt_shim_kmalloc_counted(kmalloc(size, gfp));
}

void *srpt_shim_kmalloc_if_free(size_t size, enum srpt_fault_point point)
{
	if (srpt_fault_hit(point))
		return NULL;
	return srpt_shim_kmalloc_counted(kmalloc(size, (GFP_KERNEL & ~__GFP_RECLAIM) |
						       __GFP_NOWARN));
}

void *srpt_shim_cache_zalloc(struct kmem_cache *cache)
{
	if (srpt_fault_hit(SRPT_FAULT_ALLOC))
		return NULL;
	/* A cache's objects are all of its size, sampled by KFENCE or not. */
	return srpt_shim_counted(kmem_cache_zalloc(cache, GFP_KERNEL),
				 kmem_cache_size(cache));
}

void srpt_shim_cache_free(struct kmem_cache *cache, void *p)
{
	if (srpt_shim_uncounted(p, kmem_cache_size(cache)))
		kmem_cache_free(cache, p);
}

void srpt_shim_kfree(const void *p)
{
	if (srpt_shim_uncounted(p, srpt_shim_charge(p)))
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
