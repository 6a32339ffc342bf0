/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registration functions between the shim's own files. The shim translates
 * kernel objects and calls into the C ABI of include/srpt/abi/ and makes no
 * decisions; everything that decides lives in the C++ core.
 */
#ifndef SRPT_SHIM_H
#define SRPT_SHIM_H

#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/types.h>

#include "fault.h"

struct kmem_cache;
struct seq_file;
struct workqueue_struct;

/*
 * What srpt_k_seq_printf() writes to: a debugfs file's seq_file (m), or a
 * configfs attribute's page (PAGE_SIZE bytes at page, len of them used).
 * Each call prints whole lines: on a page, a call whose text does not fit
 * whole is dropped, and so is every call after it (full), so that a file
 * cut at its size never ends inside a line.
 */
struct srpt_k_seq {
	struct seq_file *m;
	char *page;
	size_t len;
	bool full;
};

/*
 * kmalloc()/kfree() for the shim's objects of a channel: counted and subject
 * to fault injection like the core's memory (alloc.c). Pass __GFP_ZERO for
 * zeroed memory. Memory from one is freed only with the other.
 */
void *srpt_shim_kmalloc(size_t size, gfp_t gfp);
void srpt_shim_kfree(const void *p);
/*
 * An allocation the caller has a fallback for: only from memory that is free
 * right now (no reclaim, no compaction, no warning). Counted like the others
 * and freed with srpt_shim_kfree(); it fails from the fault point the caller
 * names instead of "alloc", whose walk expects every failure to fail a login.
 */
void *srpt_shim_kmalloc_if_free(size_t size, enum srpt_fault_point point);
/* The same for objects of one of the shim's slab caches, zeroed. */
void *srpt_shim_cache_zalloc(struct kmem_cache *cache);
void srpt_shim_cache_free(struct kmem_cache *cache, void *p);

/* The cache of command contexts (cmd.c), for the module's lifetime. */
int srpt_shim_cmd_cache_create(void);
void srpt_shim_cmd_cache_destroy(void);

int srpt_shim_fabric_register(void);
void srpt_shim_fabric_unregister(void);

int srpt_shim_ib_client_register(void);
void srpt_shim_ib_client_unregister(void);

/*
 * debugfs ib_srpt/: channels, objects (counters.c) and fault (fault.c); best
 * effort, as debugfs always is.
 */
void srpt_shim_debugfs_create(void);
void srpt_shim_debugfs_remove(void);

/*
 * The module's own work queue (session.h work items). Allocated first in
 * module init, destroyed last in module exit, after srpt_core_exit().
 */
extern struct workqueue_struct *srpt_shim_wq;

#endif /* SRPT_SHIM_H */
