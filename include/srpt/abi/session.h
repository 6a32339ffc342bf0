/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target-core sessions and the work items that release channels.
 */
#ifndef SRPT_ABI_SESSION_H
#define SRPT_ABI_SESSION_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

struct srpt_k_tpg;	/* the shim's se_portal_group */
struct srpt_k_session;	/* struct se_session */
struct srpt_core_chan;	/* the core's channel (cm.h) */

/*
 * target_setup_session() for `initiator_name` in `tpg`: -EACCES when no ACL
 * of the TPG admits that name (and demo mode is off), -ENOMEM, ...
 * `ch` is given back by srpt_core_session_close().
 */
int srpt_k_session_create(struct srpt_k_tpg *tpg, const char *initiator_name,
			  struct srpt_core_chan *ch,
			  struct srpt_k_session **out) SRPT_NOEXCEPT;
/*
 * 1 when `tpg` would admit `initiator_name` now: a node ACL of that name
 * exists, or the TPG generates ACLs on demand (demo mode); else 0. Asked
 * before a login builds anything, so that a login no ACL admits costs no
 * channel. Only advice: the ACL may go before srpt_k_session_create(),
 * whose -EACCES decides. Process context (takes the TPG's ACL mutex).
 */
int srpt_k_tpg_admits(struct srpt_k_tpg *tpg,
		      const char *initiator_name) SRPT_NOEXCEPT;
/* Stops new commands and waits for the session's commands to finish. */
void srpt_k_session_drain(struct srpt_k_session *sess) SRPT_NOEXCEPT;
void srpt_k_session_remove(struct srpt_k_session *sess) SRPT_NOEXCEPT;

/* The target core closes a session (ACL removed): the channel must go. */
void srpt_core_session_close(struct srpt_core_chan *ch) SRPT_NOEXCEPT;

/* Deferred work on the module's own work queue (process context). */
struct srpt_k_work;
int srpt_k_work_create(void (*fn)(void *arg), void *arg,
		       struct srpt_k_work **out) SRPT_NOEXCEPT;
/* Queues the work unless it is already pending. */
void srpt_k_work_queue(struct srpt_k_work *w) SRPT_NOEXCEPT;
/*
 * Queues the work to run `ms` milliseconds from now, unless it is already
 * pending (then it keeps its time). Any context.
 */
void srpt_k_work_queue_after(struct srpt_k_work *w, uint32_t ms) SRPT_NOEXCEPT;
/*
 * Takes a pending run back (also one still waiting for its time) and waits
 * for a running one to return; afterwards the work is neither pending nor
 * running until queued again. Process context, never from the work itself.
 */
void srpt_k_work_cancel(struct srpt_k_work *w) SRPT_NOEXCEPT;
/*
 * Must not be pending, nor running, except as the last action of its own
 * function (a channel's release work may drop the channel's last reference).
 */
void srpt_k_work_destroy(struct srpt_k_work *w) SRPT_NOEXCEPT;
/*
 * Waits until every work item queued so far on the module's work queue has
 * returned from its function, running ones included (flush_workqueue()).
 * A run queued for later (srpt_k_work_queue_after) still waiting for its
 * time is not waited for: cancel it.
 * Process context, never from a work item of that queue.
 */
void srpt_k_work_flush(void) SRPT_NOEXCEPT;

/* A one-shot event to wait for (a channel's release). */
struct srpt_k_completion;
int srpt_k_completion_create(struct srpt_k_completion **out) SRPT_NOEXCEPT;
void srpt_k_complete(struct srpt_k_completion *c) SRPT_NOEXCEPT;
/* 0 when completed, -ETIMEDOUT after `ms` milliseconds. */
int srpt_k_wait(struct srpt_k_completion *c, uint32_t ms) SRPT_NOEXCEPT;
void srpt_k_completion_destroy(struct srpt_k_completion *c) SRPT_NOEXCEPT;

/* Monotonic time in nanoseconds. */
uint64_t srpt_k_now_ns(void) SRPT_NOEXCEPT;
/* Sleeps at least `ms` milliseconds. Process context. */
void srpt_k_sleep_ms(uint32_t ms) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_SESSION_H */
